#!/usr/bin/env bash
# layers.sh — the dependency rule of docs/ARCHITECTURE.md, read from the sources: models/ includes nothing of src/
# or runtime/; runtime/ includes of src/ only the bytecode format (chunk.h, opcodes.h, errcodes.h), never a reader
# or the parser; the compiler's files in src/ include no runtime header (only the CLI's wiring, main.c and bind.*,
# does); no back-end is named in runtime/ (its GMOVE planner reaches the centrifuge's map maths, centrifuge.h, and
# nothing else); and only runtime/osal.c makes thread, clock, sleep, futex, signal, scheduling or memory-locking
# calls. Needs nothing but the sources.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
fail=0
note() { echo "FAIL $*"; fail=1; }

# the headers a file includes with quotes, as "file: header" lines
includes() { grep -HE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$@" | sed -E 's/^([^:]*):.*"([^"]*)".*/\1: \2/'; }
# a quoted header's home: src, runtime, models or grammar (the generated parser.h/lexer.h count as grammar)
home() {
    case "$1" in parser.h | lexer.h) echo grammar; return ;; esac
    for d in runtime src models; do [ -f "$d/$1" ] && { echo $d; return; }; done
    echo other
}

while read -r f h; do
    f=${f%:}
    case "$(home "$h")" in
        src | runtime | grammar) note "$f includes $h: models/ know neither the compiler nor the runtime" ;;
    esac
done < <(includes models/*.c models/*.h)

while read -r f h; do
    f=${f%:}
    case "$(home "$h")" in
        src) case "$h" in
                chunk.h | opcodes.h | errcodes.h) ;;
                *) note "$f includes src/$h: the runtime knows the bytecode format only" ;;
             esac ;;
        grammar) note "$f includes $h: the runtime never reaches the parser" ;;
        models) [ "$h" = centrifuge.h ] && [ "$f" != runtime/motion/gmove.h ] && note "$f includes $h: a back-end's header" ;;
    esac
done < <(includes $(find runtime -name '*.[ch]'))

while read -r f h; do
    f=${f%:}
    case "$f" in src/main.c | src/bind.c | src/bind.h) continue ;; esac
    [ "$(home "$h")" = runtime ] && note "$f includes runtime's $h: only the CLI's wiring (main.c, bind.*) knows it"
done < <(includes src/*.c src/*.h)

# a back-end by its type, its registry name or its header
backend='model_(centrifuge|chain|stewart|freeflyer)\b|"(centrifuge|chain|stewart|freeflyer)"'
hits=$(grep -rnE "$backend"'|#include "(chain|stewart|freeflyer)[a-z_]*\.h"' runtime --include='*.[ch]')
[ -z "$hits" ] || note "a back-end named in runtime/: $hits"

# OS calls outside the OS layer, osal.[ch] (a field named sched_note is not a call: match call syntax)
oscall='pthread_[a-z_]+|clock_[a-z_]+|nanosleep|usleep|sigaction|sigprocmask|sigtimedwait|sigwait|signal|mlockall'
oscall+='|munlockall|sched_[a-z_]+|setpriority|getpriority|syscall|getcontext|setcontext|makecontext|swapcontext'
hits=$(grep -rnE "\\b($oscall)[[:space:]]*\\(" runtime --include='*.[ch]' | grep -v '^runtime/osal\.[ch]:')
[ -z "$hits" ] || note "OS calls outside runtime/osal.c: $hits"

[ $fail = 0 ] && echo "layers: models/ <- runtime/ <- CLI, no back-end named in runtime/, OS calls in osal.c only"
exit $fail
