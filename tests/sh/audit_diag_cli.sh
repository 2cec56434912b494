#!/usr/bin/env bash
# tests/sh/audit_diag_cli.sh: diagnostics placement (tabs, UTF-8 in comments and strings, CRLF, no final newline,
# errors at the end of the file, NUL bytes, a huge line) quoted exactly, and the exit codes of every irl subcommand
# (0 ok, 1 run-time error, 64 usage, 65 compile error, 66 missing or unreadable input). Expected texts by hand:
# columns count bytes; the caret is placed by characters (tabs copied, UTF-8 continuation bytes take no place).
set -u
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
cd "$t" || exit 1
bad=0
check() { # $1 name, $2 expected exit, $3 expected stderr (exact) or "-" (not compared), then the command
    local name=$1 want_rc=$2 want_err=$3; shift 3
    "$@" >out 2>err; local rc=$?
    if [ "$rc" != "$want_rc" ]; then echo "$name: exit $rc, expected $want_rc"; head -5 err; bad=1; fi
    if [ "$want_err" != "-" ] && [ "$(cat err)" != "$want_err" ]; then
        echo "$name: stderr differs:"; diff <(printf '%s\n' "$want_err") err | head -20; bad=1
    fi
}
T=$'\t'

printf 'PROGRAM t;\nVAR x : INT;\nBEGIN\n{ \xc3\xa9t\xc3\xa9 } // \xc3\xa9\n\tPRINT "\xc3\xa9\xc3\xa9", 1 m + 2 s;\n\tx := TRUE;\nENDPROGRAM\n' >tabs.irl
sed 's/$/\r/' tabs.irl >crlf.irl
for f in tabs crlf; do
check "$f" 65 "$f.irl:5:20: error: cannot add m and s
${T}PRINT \"éé\", 1 m + 2 s;
${T}                ^
$f.irl:6:7: error: assignment: expected INT, got BOOL
${T}x := TRUE;
${T}     ^" "$IRL" check $f.irl
done

printf 'PROGRAM t;\nBEGIN\n  PRINT 1;\nENDPROGRAM junk' >nofinal.irl
check nofinal 65 "nofinal.irl:4:12: error: expected end of file, found identifier 'junk'
ENDPROGRAM junk
           ^" "$IRL" check nofinal.irl

printf 'PROGRAM t;\nBEGIN\n  PRINT 1 +' >lastline.irl
check lastline 65 "lastline.irl:3:12: error: expected an expression, found end of file
  PRINT 1 +
           ^" "$IRL" check lastline.irl

printf 'PROGRAM t;\nBEGIN\n  PRINT 1;\n' >noend.irl
check noend 65 "noend.irl:3:11: error: expected 'ENDPROGRAM', 'ON' or a statement, found end of file
  PRINT 1;
          ^" "$IRL" run noend.irl

# A NUL byte in a string would silently cut it: an error at the byte (the quote shows it as a space).
printf 'PROGRAM z;\nBEGIN\n  PRINT "\xc3\xa9a\0b";\nENDPROGRAM\n' >nul.irl
check nul 65 'nul.irl:3:13: error: a NUL byte cannot be part of a string
  PRINT "éa b";
           ^' "$IRL" run nul.irl
printf 'PROGRAM z;\nBEGIN\n  PRINT 1;\0\nENDPROGRAM\n' >nul2.irl
check nul2 65 'nul2.irl:3:11: error: invalid character (byte 0x00)
  PRINT 1; 
          ^' "$IRL" check nul2.irl

# A 200,000-term sum on one line: refused with one message (no stack overflow), quoted as a window.
python3 -c "open('huge.irl','w').write('PROGRAM h;\nVAR x : INT;\nBEGIN\n  x := ' + '1 + ' * 200000 + '1;\nENDPROGRAM\n')"
check huge 65 - "$IRL" run huge.irl
grep -q '^huge.irl:4:8: error: expression nested too deeply' err || { echo "huge: wrong message"; head -c 300 err; bad=1; }
[ "$(wc -c <err)" -lt 1000 ] || { echo "huge: the quote of a huge line is not cut"; bad=1; }
# 990 terms are fine: 991.
python3 -c "open('big.irl','w').write('PROGRAM h;\nVAR x : INT;\nBEGIN\n  x := ' + '1 + ' * 990 + '1;\n  PRINT x;\nENDPROGRAM\n')"
check big 0 "" "$IRL" run big.irl
[ "$(cat out)" = 991 ] || { echo "big: printed $(cat out)"; bad=1; }

# Exit codes of the subcommands.
printf 'PROGRAM ok;\nBEGIN\n  PRINT 1;\nENDPROGRAM\n' >ok.irl
printf 'PROGRAM e;\nVAR n : INT;\nBEGIN\n  PRINT 7 DIV n;\nENDPROGRAM\n' >rt.irl
: >empty.irl; mkdir dir.irl
check help 0 "" "$IRL" help
check version 0 "" "$IRL" --version
check noargs 64 - "$IRL"
check unknown-cmd 64 - "$IRL" bogus ok.irl
check run-nofile 64 - "$IRL" run
check run-extra 64 - "$IRL" run ok.irl extra
check run-badopt 64 - "$IRL" run --bogus ok.irl
check compile-o-missing 64 - "$IRL" compile ok.irl -o
for c in check compile disasm run; do
    check "$c-ok" 0 - "$IRL" $c ok.irl
    check "$c-missing" 66 "irl: cannot open 'missing.irl': No such file or directory" "$IRL" $c missing.irl
    check "$c-dir" 66 "irl: cannot open 'dir.irl': Is a directory" "$IRL" $c dir.irl
    check "$c-empty" 65 "empty.irl:1:1: error: expected 'LIBRARY', 'MACHINE' or 'PROGRAM', found end of file

^" "$IRL" $c empty.irl
done
check run-rt 1 "rt.irl:4:11: runtime error: division by zero (ERR_DIV_ZERO)" "$IRL" run rt.irl
check compile-rt 0 "" "$IRL" compile rt.irl -o rt.irlc
check run-irlc-rt 1 "rt.irl:4:11: runtime error: division by zero (ERR_DIV_ZERO)" "$IRL" run rt.irlc
check compile-unwritable 66 - "$IRL" compile ok.irl -o /nonexistent/dir/x.irlc
printf 'garbage' >bad.irlc
check run-bad-irlc 65 - "$IRL" run bad.irlc
exit $bad
