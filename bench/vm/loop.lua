-- bench/vm/loop.lua: 1e8 iterations of x := x + i * 0.5 - x / 3 on locals.
local function work()
  local x = 0.0
  for i = 1, 100000000 do
    x = x + i * 0.5 - x / 3
  end
  print(string.format("%.17g", x))
end
work()
