-- bench/vm/sin.lua: 1e7 calls of sin on locals (math.sin aliased to a local, the usual Lua idiom).
local function work()
  local sin = math.sin
  local s = 0.0
  for i = 1, 10000000 do
    s = s + sin(i * 0.000001)
  end
  print(string.format("%.17g", s))
end
work()
