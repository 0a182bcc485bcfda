/*
 * test-policy.c - policy parsing (every error names file:line and what was
 * expected), the flag vocabulary (vocab.c: its tables sorted and typed,
 * what the allow-list takes and what it refuses and why, the vetted -Wl,
 * options, llvm-bolt's options), the hardening a policy may weaken only
 * when the caller says so, the caller's switches (POLICY_UNCHECKED_FLAGS,
 * POLICY_WEAKEN, the profile mode), bounded reads of the lists, glob
 * matching, policy application and TU naming.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>

#include "wrapper/policy/glob.h"
#include "wrapper/policy/policy.h"
#include "wrapper/common/rmtree.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"
#include "wrapper/common/xalloc.h"
#include "wrapper/tu.h"
#include "wrapper/policy/vocab.h"

static int parse(const char *text, struct policy *p, struct strbuf *err)
{
	return policy_parse(p, "/p/x.policy", text, strlen(text), err);
}

struct bad {
	const char *text;
	const char *error;   /* expected error text */
};

static const struct bad bad_policies[] = {
	{ "cflags += -O3\n", "/p/x.policy:1: expected a section header such as [global] before settings" },
	{ "[global]\nfoo = 1\n", "/p/x.policy:2: expected a known key (cflags, ldflags, lto, march, hot, cold, plugin, bolt), got \"foo\"" },
	/* near misses get the line they meant */
	{ "[global]\ncflag += -O3\n", "/p/x.policy:2: expected a known key (cflags, ldflags, lto, march, hot, cold, plugin, bolt), got \"cflag\": did you mean \"cflags += -O3\"?" },
	{ "[global]\nCFLAGS += -O3\n", "/p/x.policy:2: expected a known key (cflags, ldflags, lto, march, hot, cold, plugin, bolt), got \"CFLAGS\": did you mean \"cflags += -O3\"?" },
	{ "[global]\nCFLAGS = -O3\n", "/p/x.policy:2: expected a known key (cflags, ldflags, lto, march, hot, cold, plugin, bolt), got \"CFLAGS\": did you mean \"cflags += -O3\"?" },
	{ "[a.c]\nLDFLAG -= -Wl,-O1\n", "/p/x.policy:2: expected a known key (cflags, ldflags, lto, march, hot, cold, plugin, bolt), got \"LDFLAG\": did you mean \"ldflags -= -Wl,-O1\"?" },
	{ "[global]\nLTO = on\n", "/p/x.policy:2: expected a known key (cflags, ldflags, lto, march, hot, cold, plugin, bolt), got \"LTO\": did you mean \"lto = on\"?" },
	{ "[global]\nplugins = off\n", "/p/x.policy:2: expected a known key (cflags, ldflags, lto, march, hot, cold, plugin, bolt), got \"plugins\": did you mean \"plugin = off\"?" },
	{ "[global]\nhot_list = h.txt\n", "/p/x.policy:2: expected a known key (cflags, ldflags, lto, march, hot, cold, plugin, bolt), got \"hot_list\"" },
	/* documented values only */
	{ "[global]\nlto = yes\n", "/p/x.policy:2: expected lto = on, off, fat or slim, got \"yes\"" },
	{ "[global]\nlto = 1\n", "/p/x.policy:2: expected lto = on, off, fat or slim, got \"1\"" },
	{ "[global]\nlto = On\n", "/p/x.policy:2: expected lto = on, off, fat or slim, got \"On\"" },
	{ "[global]\nplugin = true\n", "/p/x.policy:2: expected plugin = on or off, got \"true\"" },
	{ "[global]\nplugin = no\n", "/p/x.policy:2: expected plugin = on or off, got \"no\"" },
	{ "[global]\nbolt = on\n", "/p/x.policy:2: expected bolt = ready or off, got \"on\"" },
	{ "[a.c]\nbolt = ready\n", "/p/x.policy:2: expected \"bolt\" only in [global]" },
	{ "[global]\nbolt += ready\n", "/p/x.policy:2: expected \"bolt = VALUE\" (no += or -=)" },
	{ "[a.c]\ncflags += -freorder-blocks-and-partition\n[global]\nbolt = ready\n",
	  "/p/x.policy:2: cannot add -freorder-blocks-and-partition with bolt = ready (line 4): BOLT cannot rewrite the .cold parts it splits functions into" },
	/* ABI-changing flags: refused everywhere, added or removed */
	{ "[src/backend/utils/mmgr/aset.c]\ncflags += -O2 -fpack-struct\n", "/p/x.policy:2: cannot add -fpack-struct: it changes the ABI (struct layout): objects built with it disagree with the rest of PostgreSQL, libc and extensions" },
	{ "[global]\ncflags += -fpack-struct=2\n", "/p/x.policy:2: cannot add -fpack-struct=2: it changes the ABI (struct layout): objects built with it disagree with the rest of PostgreSQL, libc and extensions" },
	{ "[global]\ncflags += -fshort-enums\n", "/p/x.policy:2: cannot add -fshort-enums: it changes the ABI (the size of enums): objects built with it disagree with the rest of PostgreSQL, libc and extensions" },
	{ "[global]\ncflags += -fno-short-enums\n", "/p/x.policy:2: cannot add -fno-short-enums: it changes the ABI (the size of enums): objects built with it disagree with the rest of PostgreSQL, libc and extensions" },
	{ "[global]\ncflags += -fshort-wchar\n", "/p/x.policy:2: cannot add -fshort-wchar: it changes the ABI (the size of wchar_t): objects built with it disagree with the rest of PostgreSQL, libc and extensions" },
	{ "[global]\ncflags += -freg-struct-return\n", "/p/x.policy:2: cannot add -freg-struct-return: it changes the ABI (how functions return structs): objects built with it disagree with the rest of PostgreSQL, libc and extensions" },
	{ "[global]\ncflags += -fpcc-struct-return\n", "/p/x.policy:2: cannot add -fpcc-struct-return: it changes the ABI (how functions return structs): objects built with it disagree with the rest of PostgreSQL, libc and extensions" },
	{ "[global]\ncflags += -funsigned-char\n", "/p/x.policy:2: cannot add -funsigned-char: it changes the ABI (whether char is signed): objects built with it disagree with the rest of PostgreSQL, libc and extensions" },
	{ "[global]\ncflags -= -fsigned-char\n", "/p/x.policy:2: cannot remove -fsigned-char: it changes the ABI (whether char is signed): objects built with it disagree with the rest of PostgreSQL, libc and extensions" },
	{ "[global]\ncflags += -fno-signed-char\n", "/p/x.policy:2: cannot add -fno-signed-char: it changes the ABI (whether char is signed): objects built with it disagree with the rest of PostgreSQL, libc and extensions" },
	{ "[global]\ncflags += -malign-double\n", "/p/x.policy:2: cannot add -malign-double: it changes the ABI (the alignment of double): objects built with it disagree with the rest of PostgreSQL, libc and extensions" },
	{ "[global]\ncflags += -mabi=ms\n", "/p/x.policy:2: cannot add -mabi=ms: it changes the ABI (the calling convention): objects built with it disagree with the rest of PostgreSQL, libc and extensions" },
	{ "[global]\ncflags += -ffixed-rbx\n", "/p/x.policy:2: cannot add -ffixed-rbx: it changes the ABI (which registers code may use): objects built with it disagree with the rest of PostgreSQL, libc and extensions" },
	{ "[global]\ncflags += -fcall-used-rbx\n", "/p/x.policy:2: cannot add -fcall-used-rbx: it changes the ABI (which registers calls preserve): objects built with it disagree with the rest of PostgreSQL, libc and extensions" },
	{ "[global]\ncflags += -fcall-saved-r11\n", "/p/x.policy:2: cannot add -fcall-saved-r11: it changes the ABI (which registers calls preserve): objects built with it disagree with the rest of PostgreSQL, libc and extensions" },
	{ "[global]\ncflags += -m32\n", "/p/x.policy:2: cannot add -m32: it changes the ABI (the data model: 32-bit code): objects built with it disagree with the rest of PostgreSQL, libc and extensions" },
	{ "[global]\nldflags += -mx32\n", "/p/x.policy:2: cannot add -mx32: it changes the ABI (the data model: x32 code): objects built with it disagree with the rest of PostgreSQL, libc and extensions" },
	{ "[global]\ncflags += -m16\n", "/p/x.policy:2: cannot add -m16: it changes the ABI (the data model: 16-bit code): objects built with it disagree with the rest of PostgreSQL, libc and extensions" },
	{ "[global]\ncflags -= -fwrapv\n", "/p/x.policy:2: cannot remove -fwrapv: PostgreSQL requires it" },
	{ "[global]\n\n# c\ncflags -= -O2 -fno-strict-aliasing\n", "/p/x.policy:4: cannot remove -fno-strict-aliasing: PostgreSQL requires it" },
	{ "[global]\ncflags -= -fexcess-precision=standard\n", "/p/x.policy:2: cannot remove -fexcess-precision=standard: PostgreSQL requires it" },
	{ "[a.c]\ncflags += -ffast-math\n", "/p/x.policy:2: cannot add -ffast-math: it changes PostgreSQL's arithmetic or aliasing semantics" },
	{ "[global]\ncflags += -Ofast\n", "/p/x.policy:2: cannot add -Ofast: it changes PostgreSQL's arithmetic or aliasing semantics" },
	{ "[global]\ncflags += -fstrict-aliasing\n", "/p/x.policy:2: cannot add -fstrict-aliasing: it changes PostgreSQL's arithmetic or aliasing semantics" },
	{ "[global]\ncflags += -fno-wrapv\n", "/p/x.policy:2: cannot add -fno-wrapv: it changes PostgreSQL's arithmetic or aliasing semantics" },
	{ "[global]\ncflags += -funsafe-math-optimizations\n", "/p/x.policy:2: cannot add -funsafe-math-optimizations: it changes PostgreSQL's arithmetic or aliasing semantics" },
	{ "[global]\ncflags += -ffinite-math-only\n", "/p/x.policy:2: cannot add -ffinite-math-only: it changes PostgreSQL's arithmetic or aliasing semantics" },
	{ "[global]\ncflags += -ftrapv\n", "/p/x.policy:2: cannot add -ftrapv: it changes PostgreSQL's arithmetic or aliasing semantics" },
	{ "[src/backend/utils/adt/float.c]\ncflags += -fsingle-precision-constant\n", "/p/x.policy:2: cannot add -fsingle-precision-constant: it changes PostgreSQL's arithmetic or aliasing semantics" },
	{ "[global]\ncflags += -mdaz-ftz\n", "/p/x.policy:2: cannot add -mdaz-ftz: it changes PostgreSQL's arithmetic or aliasing semantics" },
	{ "[global]\ncflags += -fallow-store-data-races\n", "/p/x.policy:2: cannot add -fallow-store-data-races: it changes PostgreSQL's arithmetic or aliasing semantics" },
	{ "[src/{a,b.c]\n", "/p/x.policy:1: bad glob \"src/{a,b.c\": expected '}' closing the '{' alternatives" },
	{ "[src/[ab.c]\n", "/p/x.policy:1: bad glob \"src/[ab.c\": expected ']' closing the '[' set" },
	{ "[src/a}.c]\n", "/p/x.policy:1: bad glob \"src/a}.c\": expected '{' before '}'" },
	{ "[]\n", "/p/x.policy:1: expected \"[GLOB]\" or \"[global]\"" },
	{ "[global\n", "/p/x.policy:1: expected \"[GLOB]\" or \"[global]\"" },
	{ "[global]\ncflags\n", "/p/x.policy:2: expected \"key += value\", \"key -= value\" or \"key = value\"" },
	{ "[global]\ncflags = -O2\n", "/p/x.policy:2: expected \"cflags += FLAGS\" or \"cflags -= FLAGS\"" },
	{ "[global]\ncflags +=\n", "/p/x.policy:2: expected at least one flag after +=" },
	{ "[global]\ncflags += O3\n", "/p/x.policy:2: expected flags starting with '-', got \"O3\"" },
	{ "[global]\ncflags += -O2 \"-DX=a b\n", "/p/x.policy:2: expected a closing quote: -O2 \"-DX=a b" },
	{ "[global]\ncflags += -O2 'unterminated\n", "/p/x.policy:2: expected a closing quote: -O2 'unterminated" },
	{ "[global]\nlto = maybe\n", "/p/x.policy:2: expected lto = on, off, fat or slim, got \"maybe\"" },
	{ "[global]\nlto += on\n", "/p/x.policy:2: expected \"lto = VALUE\" (no += or -=)" },
	{ "[a.c]\nlto = on\n", "/p/x.policy:2: expected \"lto\" only in [global]" },
	{ "[a.c]\nldflags += -Wl,-O1\n", "/p/x.policy:2: expected ldflags only in [global] (links have no translation unit)" },
	{ "[global]\nplugin = perhaps\n", "/p/x.policy:2: expected plugin = on or off, got \"perhaps\"" },
	{ "[global]\nmarch =\n", "/p/x.policy:2: expected one CPU name after march =" },
	{ "[global]\nhot =\n", "/p/x.policy:2: expected a file name after hot =" },
	/* a key set twice: both lines named (the [global] keys are the
	 * policy's, march a section's) */
	{ "[global]\nlto = on\ncflags += -O2\nlto = off\n", "/p/x.policy:4: expected lto once (line 2 sets it already)" },
	{ "[global]\nbolt = ready\n[a.c]\ncflags += -O3\n[global]\nbolt = off\n", "/p/x.policy:6: expected bolt once (line 2 sets it already)" },
	{ "[global]\nplugin = on\nplugin = on\n", "/p/x.policy:3: expected plugin once (line 2 sets it already)" },
	{ "[global]\nhot = a.txt\nhot = b.txt\n", "/p/x.policy:3: expected hot once (line 2 sets it already)" },
	{ "[global]\ncold = a.txt\n\ncold = a.txt\n", "/p/x.policy:4: expected cold once (line 2 sets it already)" },
	{ "[a.c]\nmarch = native\nmarch = znver3\n", "/p/x.policy:3: expected march once in [a.c] (line 2 sets it already)" },
	/* the vocabulary: what loads code */
	{ "[global]\ncflags += -fplugin=/tmp/evil.so\n", "/p/x.policy:2: cannot add -fplugin=/tmp/evil.so: it loads code (a GCC plugin)" },
	{ "[global]\ncflags += -fplugin-arg-x-y=1\n", "/p/x.policy:2: cannot add -fplugin-arg-x-y=1: it loads code (a GCC plugin)" },
	{ "[a.c]\ncflags += -O2 -B /tmp/x\n", "/p/x.policy:2: cannot add -B: it loads code (where the driver finds cc1, as and ld)" },
	{ "[a.c]\ncflags += -B/tmp/x\n", "/p/x.policy:2: cannot add -B/tmp/x: it loads code (where the driver finds cc1, as and ld)" },
	{ "[global]\ncflags += --prefix=/tmp/x\n", "/p/x.policy:2: cannot add --prefix=/tmp/x: it loads code (where the driver finds cc1, as and ld)" },
	{ "[global]\ncflags += -specs=/tmp/s\n", "/p/x.policy:2: cannot add -specs=/tmp/s: it loads code (a specs file can run any program)" },
	{ "[global]\ncflags += -iplugindir=/tmp\n", "/p/x.policy:2: cannot add -iplugindir=/tmp: it loads code (where GCC finds plugins)" },
	{ "[global]\ncflags += -wrapper\n", "/p/x.policy:2: cannot add -wrapper: it loads code (another program run around the compiler)" },
	{ "[global]\nldflags += -l:evil.so\n", "/p/x.policy:2: cannot add -l:evil.so: it loads code (a library)" },
	{ "[global]\nldflags += -lm\n", "/p/x.policy:2: cannot add -lm: it loads code (a library)" },
	{ "[global]\ncflags += -fsanitize=address\n", "/p/x.policy:2: cannot add -fsanitize=address: it loads code (a sanitizer runtime)" },
	{ "[global]\ncflags += -fopenmp\n", "/p/x.policy:2: cannot add -fopenmp: it loads code (libgomp)" },
	{ "[global]\nldflags += -Wl,-plugin=/x.so\n", "/p/x.policy:2: cannot add -Wl,-plugin=/x.so: it loads code (the linker option -plugin=/x.so is outside the vetted set: -Wl,-O1, --gc-sections, --as-needed, --emit-relocs, --hash-style=, --build-id, --icf=, --sort-common, -z relro, -z now, -z noexecstack ...)" },
	{ "[global]\nldflags += -fuse-ld=evil\n", "/p/x.policy:2: cannot add -fuse-ld=evil: it loads code (another linker program; ldflags may name -fuse-ld=bfd, gold, lld or mold)" },
	/* ... names a path */
	{ "[global]\ncflags += --sysroot=/tmp/root\n", "/p/x.policy:2: cannot add --sysroot=/tmp/root: it names a path (the system root)" },
	{ "[global]\ncflags += -imacros /tmp/m.h\n", "/p/x.policy:2: cannot add -imacros: it names a path (a file to include or an include directory)" },
	{ "[global]\ncflags += -include x.h\n", "/p/x.policy:2: cannot add -include: it names a path (a file to include or an include directory)" },
	{ "[global]\ncflags += -I/tmp/inc\n", "/p/x.policy:2: cannot add -I/tmp/inc: it names a path (an include directory)" },
	{ "[global]\nldflags += -L/tmp\n", "/p/x.policy:2: cannot add -L/tmp: it names a path (a library directory)" },
	{ "[global]\ncflags += -ffile-prefix-map=/a=/b\n", "/p/x.policy:2: cannot add -ffile-prefix-map=/a=/b: it names a path (a rewrite of the paths recorded in the object)" },
	{ "[global]\ncflags += -finstrument-functions-exclude-file-list=/usr/include\n", "/p/x.policy:2: cannot add -finstrument-functions-exclude-file-list=/usr/include: it names a path (its value is a path)" },
	{ "[global]\nldflags += -Wl,-rpath,/tmp\n", "/p/x.policy:2: cannot add -Wl,-rpath,/tmp: it names a path (the linker option -rpath is outside the vetted set: -Wl,-O1, --gc-sections, --as-needed, --emit-relocs, --hash-style=, --build-id, --icf=, --sort-common, -z relro, -z now, -z noexecstack ...)" },
	/* ... changes what the compiler produces */
	{ "[global]\ncflags += -o /etc/passwd\n", "/p/x.policy:2: cannot add -o: it changes what the compiler produces (the output file)" },
	{ "[global]\ncflags += -E\n", "/p/x.policy:2: cannot add -E: it changes what the compiler produces (preprocessed source instead of an object)" },
	{ "[global]\ncflags += -S\n", "/p/x.policy:2: cannot add -S: it changes what the compiler produces (assembler code instead of an object)" },
	{ "[global]\ncflags -= -c\n", "/p/x.policy:2: cannot remove -c: it changes what the compiler produces (a compile instead of a link)" },
	{ "[global]\ncflags += -fsyntax-only\n", "/p/x.policy:2: cannot add -fsyntax-only: it changes what the compiler produces (no object at all)" },
	{ "[global]\ncflags += -x c++\n", "/p/x.policy:2: cannot add -x: it changes what the compiler produces (the language the input is read as)" },
	{ "[global]\ncflags += -xc++\n", "/p/x.policy:2: cannot add -xc++: it changes what the compiler produces (the language the input is read as)" },
	{ "[global]\ncflags += -save-temps=obj\n", "/p/x.policy:2: cannot add -save-temps=obj: it changes what the compiler produces (intermediate files kept)" },
	{ "[global]\ncflags += -Wa,-adhln=/tmp/l\n", "/p/x.policy:2: cannot add -Wa,-adhln=/tmp/l: it changes what the compiler produces (options for the assembler, unchecked)" },
	{ "[global]\ncflags += -Wp,-MD,/tmp/d\n", "/p/x.policy:2: cannot add -Wp,-MD,/tmp/d: it changes what the compiler produces (options for the preprocessor, unchecked)" },
	{ "[global]\ncflags += -Xassembler --x\n", "/p/x.policy:2: cannot add -Xassembler: it changes what the compiler produces (an option for another program, unchecked)" },
	{ "[global]\ncflags += -fdump-tree-all\n", "/p/x.policy:2: cannot add -fdump-tree-all: it changes what the compiler produces (dump files)" },
	{ "[global]\ncflags += -fstack-usage\n", "/p/x.policy:2: cannot add -fstack-usage: it changes what the compiler produces (.su files)" },
	{ "[global]\ncflags += -fopt-info-inline=inl.txt\n", "/p/x.policy:2: cannot add -fopt-info-inline=inl.txt: it changes what the compiler produces (-fopt-info with a file writes to it)" },
	{ "[global]\ncflags += -MD\n", "/p/x.policy:2: cannot add -MD: it changes what the compiler produces (dependency information)" },
	{ "[global]\ncflags += -gsplit-dwarf\n", "/p/x.policy:2: cannot add -gsplit-dwarf: it changes what the compiler produces (.dwo files beside the object)" },
	{ "[a.c]\ncflags += -fprofile-generate=/tmp/prof\n", "/p/x.policy:2: cannot add -fprofile-generate=/tmp/prof: it changes what the compiler produces (profile instrumentation or feedback: pgbuild pgo adds it through PGOPT_PROFILE)" },
	{ "[a.c]\ncflags += -fprofile-use\n", "/p/x.policy:2: cannot add -fprofile-use: it changes what the compiler produces (profile instrumentation or feedback: pgbuild pgo adds it through PGOPT_PROFILE)" },
	{ "[a.c]\ncflags += -ftest-coverage\n", "/p/x.policy:2: cannot add -ftest-coverage: it changes what the compiler produces (profile instrumentation or feedback: pgbuild pgo adds it through PGOPT_PROFILE)" },
	{ "[a.c]\ncflags += -fno-profile-use\n", "/p/x.policy:2: cannot add -fno-profile-use: it changes what the compiler produces (profile instrumentation or feedback: pgbuild pgo adds it through PGOPT_PROFILE)" },
	{ "[global]\nldflags += -fprofile-generate\n", "/p/x.policy:2: cannot add -fprofile-generate: it changes what the compiler produces (profile instrumentation or feedback: pgbuild pgo adds it through PGOPT_PROFILE)" },
	/* ... is not an optimization option */
	{ "[global]\ncflags += -DNDEBUG\n", "/p/x.policy:2: cannot add -DNDEBUG: it is not an optimization option (a macro definition changes the program, not how it is optimized)" },
	{ "[global]\ncflags -= -D_FORTIFY_SOURCE=2\n", "/p/x.policy:2: cannot remove -D_FORTIFY_SOURCE=2: it weakens the build's hardening (fortify: _FORTIFY_SOURCE, glibc's checked string and memory functions); allow it with PGOPT_WEAKEN=fortify in the environment (--pgopt-weaken=fortify in CC, pgbuild --weaken fortify)" },
	{ "[global]\nldflags -= -Wl,-z,relro,-z,now\n", "/p/x.policy:2: cannot remove -Wl,-z,relro,-z,now: it weakens the build's hardening (relro: RELRO, relocated data read-only after start-up (-z relro); bind-now: BIND_NOW, every symbol bound at start-up and the whole GOT read-only (-z now)); allow it with PGOPT_WEAKEN=relro,bind-now in the environment (--pgopt-weaken=relro,bind-now in CC, pgbuild --weaken relro,bind-now)" },
	/* the allow-list: what it does not know, and values its rows do not take */
	{ "[global]\ncflags += -fcall-graph\n", "/p/x.policy:2: cannot add -fcall-graph: it is not an optimization option the vocabulary knows" },
	{ "[global]\ncflags += -O2 -O9\n", "/p/x.policy:2: cannot add -O9: it is not an optimization option the vocabulary knows" },
	{ "[global]\ncflags += -pipe\n", "/p/x.policy:2: cannot add -pipe: it is not an optimization option the vocabulary knows" },
	{ "[global]\ncflags += -fvisibility=hidden\n", "/p/x.policy:2: cannot add -fvisibility=hidden: it is not an optimization option the vocabulary knows" },
	/* ... and a misspelt one names the nearest it knows: with -=, a -fno-
	 * spelling (its "no-" kept) and a value (kept) alike */
	{ "[global]\ncflags += -fomit-frame-pointr\n", "/p/x.policy:2: cannot add -fomit-frame-pointr: it is not an optimization option the vocabulary knows (did you mean -fomit-frame-pointer?)" },
	{ "[global]\ncflags -= -fomit-frame-pointr\n", "/p/x.policy:2: cannot remove -fomit-frame-pointr: it is not an optimization option the vocabulary knows (did you mean -fomit-frame-pointer?)" },
	{ "[a.c]\ncflags += -fno-omit-frame-pointr\n", "/p/x.policy:2: cannot add -fno-omit-frame-pointr: it is not an optimization option the vocabulary knows (did you mean -fno-omit-frame-pointer?)" },
	{ "[a.c]\ncflags -= -fno-omit-frame-pointr\n", "/p/x.policy:2: cannot remove -fno-omit-frame-pointr: it is not an optimization option the vocabulary knows (did you mean -fno-omit-frame-pointer?)" },
	{ "[global]\ncflags += -falign-functons=32\n", "/p/x.policy:2: cannot add -falign-functons=32: it is not an optimization option the vocabulary knows (did you mean -falign-functions=32?)" },
	{ "[global]\nldflags += -Wl,-O1 -fltoo\n", "/p/x.policy:2: cannot add -fltoo: it is not an optimization option the vocabulary knows (did you mean -flto?)" },
	{ "[global]\ncflags += -flto=bogus\n", "/p/x.policy:2: cannot add -flto=bogus: its value is not one the vocabulary allows (expected -flto=auto, jobserver, thin, full or N)" },
	{ "[global]\ncflags += -flifetime-dse=3\n", "/p/x.policy:2: cannot add -flifetime-dse=3: its value is not one the vocabulary allows (expected -flifetime-dse=N, N a decimal integer from 0 to 2)" },
	{ "[global]\ncflags += -falign-loops=x\n", "/p/x.policy:2: cannot add -falign-loops=x: its value is not one the vocabulary allows (expected -falign-loops=N[:M[:N2[:M2]]])" },
	{ "[a.c]\nmarch = pentium99\n", "/p/x.policy:2: cannot add -march=pentium99: its value is not one the vocabulary allows (expected a CPU name gcc or clang knows (gcc --help=target lists them) or native)" },
	{ "[global]\ncflags += --param=no-such-param=1\n", "/p/x.policy:2: cannot add --param=no-such-param=1: its value is not one the vocabulary allows (expected --param=NAME=N, NAME one of the parameters gcc 12 --help=params lists)" },
	{ "[global]\ncflags += --param=align-threshold=0\n", "/p/x.policy:2: cannot add --param=align-threshold=0: its value is not one the vocabulary allows (expected --param=align-threshold=N, N an integer from 1 to 65536)" },
	{ "[global]\ncflags += -Wfoo,bar\n", "/p/x.policy:2: cannot add -Wfoo,bar: its value is not one the vocabulary allows (expected -W[no-]NAME[=VALUE])" },
	{ "[global]\ncflags += -mtune=/tmp/x\n", "/p/x.policy:2: cannot add -mtune=/tmp/x: it names a path (its value is a path)" },
	{ "[global]\ncflags += -finstrument-functions\n", "/p/x.policy:2: cannot add -finstrument-functions: it loads code (calls to __cyg_profile_func_enter and _exit the program must supply)" },
	{ "[global]\ncflags += -fstrict-overflow\n", "/p/x.policy:2: cannot add -fstrict-overflow: it changes PostgreSQL's arithmetic or aliasing semantics" },
	{ "[global]\ncflags += -UNDEBUG\n", "/p/x.policy:2: cannot add -UNDEBUG: it is not an optimization option (a macro definition changes the program, not how it is optimized)" },
	{ "[global]\ncflags += -std=gnu89\n", "/p/x.policy:2: cannot add -std=gnu89: it is not an optimization option" },
	{ "[global]\nldflags += -shared\n", "/p/x.policy:2: cannot add -shared: it is not an optimization option" },
	{ "[global]\ncflags += --param max-inline-insns-auto=30\n", "/p/x.policy:2: cannot add --param: it is not an optimization option (write --param=NAME=VALUE as one word)" },
	{ "[global]\ncflags += -Wl,-O1\n", "/p/x.policy:2: cannot add -Wl,-O1: it is a link option: write it as ldflags += -Wl,-O1" },
	{ "[global]\ncflags += -fuse-ld=gold\n", "/p/x.policy:2: cannot add -fuse-ld=gold: it is a link option: write it as ldflags += -fuse-ld=gold" },
	{ "[global]\ncflags += -no-pie\n", "/p/x.policy:2: cannot add -no-pie: it is a link option: write it as ldflags += -no-pie" },
	{ "[global]\nldflags += -Wl,--wrap=malloc\n", "/p/x.policy:2: cannot add -Wl,--wrap=malloc: it is not an optimization option (the linker option --wrap=malloc is outside the vetted set: -Wl,-O1, --gc-sections, --as-needed, --emit-relocs, --hash-style=, --build-id, --icf=, --sort-common, -z relro, -z now, -z noexecstack ...)" },
	{ "[global]\nldflags += -Wl,-z,execstack\n", "/p/x.policy:2: cannot add -Wl,-z,execstack: it is not an optimization option (the linker option -z execstack is outside the vetted set: -Wl,-O1, --gc-sections, --as-needed, --emit-relocs, --hash-style=, --build-id, --icf=, --sort-common, -z relro, -z now, -z noexecstack ...)" },
	{ "[global]\nldflags += -Wl,-O1,--defsym=x=1\n", "/p/x.policy:2: cannot add -Wl,-O1,--defsym=x=1: it is not an optimization option (the linker option --defsym=x=1 is outside the vetted set: -Wl,-O1, --gc-sections, --as-needed, --emit-relocs, --hash-style=, --build-id, --icf=, --sort-common, -z relro, -z now, -z noexecstack ...)" },
	{ "[global]\nldflags += -Wl,-z\n", "/p/x.policy:2: cannot add -Wl,-z: it is not an optimization option (-z without its keyword)" },
	{ "[a.c]\nmarch = /tmp/x\n", "/p/x.policy:2: cannot add -march=/tmp/x: it names a path (its value is a path)" },
};

static void test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_policies) / sizeof(bad_policies[0]); i++) {
		struct policy p;
		struct strbuf err = STRBUF_INIT;
		if (parse(bad_policies[i].text, &p, &err) != -1)
			fail_msg("accepted: %s", bad_policies[i].text);
		if (strcmp(err.buf, bad_policies[i].error))
			fail_msg("policy %zu: got  <%s>\nwant <%s>", i, err.buf, bad_policies[i].error);
		policy_release(&p);
		strbuf_release(&err);
	}
}

/* Flags that look like the ABI ones but are not: accepted. */
static void test_accepted(void **state)
{
	static const char *const good[] = {
		"\xEF\xBB\xBF[global]\ncflags += -O3\n",        /* a UTF-8 BOM */
		"\xEF\xBB\xBF# comment\n[a.c]\ncflags -= -g\n",
		"[global]\ncflags += -m64 -march=native -mtune=native -fno-plt -fpic\n",
		"[global]\ncflags += -fcaller-saves\n",  /* not the -fcall-used- prefix */
		"[global]\nbolt = ready\nlto = off\nplugin = on\n",
		"[global]\nbolt = off\n",
		/* the vocabulary: optimization and code generation, in both */
		"[global]\ncflags += -O3 -Os -Og -g -g3 -gdwarf-5 -ggdb -flto=auto -flto-partition=one -ffat-lto-objects -fuse-linker-plugin\n",
		"[global]\ncflags += --param=max-inline-insns-auto=30 -Wall -Wno-error=coverage-mismatch -Werror -w -pedantic\n",
		"[global]\ncflags += -fno-omit-frame-pointer -fstack-protector-strong -fcf-protection=full -fPIC -fno-semantic-interposition -fipa-pta -fopenmp-simd\n",
		"[global]\ncflags += -mtune=generic -march=x86-64-v3 -mno-avx512f -mprefer-vector-width=256 -fopt-info-inline-optimized -fno-lto\n",
		"[global]\ncflags -= -g -O2 -Werror\n",
		/* hardening added is no weakening */
		"[global]\ncflags += -fstack-protector-all -fstack-clash-protection -fcf-protection -D_FORTIFY_SOURCE=3 -fPIE\nldflags += -pie -Wl,-z,relro,-z,now\n",
		/* links: the compile options and the vetted linker options */
		"[global]\nldflags += -O2 -flto=auto -fuse-linker-plugin -fuse-ld=gold -fuse-ld=lld -Wl,-O1 -Wl,--gc-sections -Wl,--as-needed -Wl,--emit-relocs -Wl,-q\n",
		"[global]\nldflags += -Wl,-z,relro -Wl,-z,now -Wl,-z,noexecstack -Wl,-zrelro,-znow -Wl,-O1,--sort-common,--as-needed,-z,relro,-z,now\n",
		"[global]\nldflags += -Wl,--hash-style=gnu -Wl,--build-id -Wl,--build-id=sha1 -Wl,--icf=all -Wl,-z,max-page-size=0x200000 -Wl,-Bsymbolic-functions\n",
		"[global]\nldflags -= -Wl,--as-needed\n",
		"[global]\ncflags += -fpie\nldflags += -pie\n",
		"[global]\nbolt = off\n[a.c]\ncflags += -freorder-blocks-and-partition\n",
		NULL,
	};
	(void)state;
	for (int i = 0; good[i]; i++) {
		struct policy p;
		struct strbuf err = STRBUF_INIT;
		if (parse(good[i], &p, &err) != 0)
			fail_msg("rejected <%s>: %s", good[i], err.buf);
		policy_release(&p);
		strbuf_release(&err);
	}
}

/* Warnings: sections that can never match a C translation unit. */
static void test_warnings(void **state)
{
	struct { const char *text; const char *warning; } cases[] = {
		{ "[src/backend/executor]\ncflags += -O3\n",
		  "/p/x.policy:1: section [src/backend/executor] can never match a C translation unit: it names a directory, not files; for the C files in it write [src/backend/executor/*.c], with its subdirectories [src/backend/executor/**]" },
		{ "[global]\n[src/backend/executor/]\ncflags += -O3\n",
		  "/p/x.policy:2: section [src/backend/executor/] can never match a C translation unit: it names a directory, not files; for the C files in it write [src/backend/executor/*.c], with its subdirectories [src/backend/executor/**]" },
		{ "[*.o]\ncflags += -O3\n",
		  "/p/x.policy:1: section [*.o] can never match a C translation unit (their names end in .c, e.g. src/backend/utils/mmgr/aset.c)" },
		{ "[src/**/*.h]\n",
		  "/p/x.policy:1: section [src/**/*.h] can never match a C translation unit (their names end in .c, e.g. src/backend/utils/mmgr/aset.c)" },
		{ "[src/x.[ch]pp]\n",
		  "/p/x.policy:1: section [src/x.[ch]pp] can never match a C translation unit (their names end in .c, e.g. src/backend/utils/mmgr/aset.c)" },
		{ "[/abs/x.c]\ncflags += -O3\n",
		  "/p/x.policy:1: section [/abs/x.c] is an absolute path, but translation units are named relative to the source root (e.g. src/backend/utils/mmgr/aset.c): it is read as [abs/x.c], which matches a unit only at that path under the root" },
		{ "[/home/me/pg/src/backend/*.c]\ncflags += -O3\n",
		  "/p/x.policy:1: section [/home/me/pg/src/backend/*.c] is an absolute path, but translation units are named relative to the source root (e.g. src/backend/utils/mmgr/aset.c): it is read as [home/me/pg/src/backend/*.c], which matches a unit only at that path under the root; did you mean [src/backend/*.c]?" },
		/* no warning */
		{ "[src/backend/executor/*.c]\n", NULL },
		{ "[src/backend/executor/**]\n", NULL },
		{ "[src/backend/**/]\n", "/p/x.policy:1: section [src/backend/**/] can never match a C translation unit (their names end in .c, e.g. src/backend/utils/mmgr/aset.c)" },
		{ "[src/backend/**/*]\n", NULL },
		{ "[src/backend/x.?]\n", NULL },
		{ "[src/backend/x[.]c]\n", NULL },
		{ "[src/backend/x.[a-d]]\n", NULL },
		{ "[src/{backend/executor,port}/*.c]\n", NULL },
		{ "[src/{backend/x.c,port/y.o}]\n", NULL },  /* one alternative can */
		{ "[src/port/*\\.c]\n", NULL },
		{ "[src/port/x.c*]\n", NULL },
		{ "[global]\n", NULL },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct policy p;
		struct strbuf err = STRBUF_INIT;
		if (parse(cases[i].text, &p, &err) != 0)
			fail_msg("rejected <%s>: %s", cases[i].text, err.buf);
		if (!cases[i].warning) {
			if (p.warnings.nr)
				fail_msg("case %zu: unexpected warning <%s>", i, p.warnings.v[0]);
		} else if (p.warnings.nr != 1 || strcmp(p.warnings.v[0], cases[i].warning)) {
			fail_msg("case %zu: got %zu warnings, first <%s>\nwant <%s>", i, p.warnings.nr,
				 p.warnings.nr ? p.warnings.v[0] : "", cases[i].warning);
		}
		policy_release(&p);
		strbuf_release(&err);
	}
}

/* Sections a build's units leave unused (policy_unmatched): a whole
 * section, or the brace alternatives that matched nothing; [global]
 * never; a leading '/' ignored as in matching. */
static void test_unmatched(void **state)
{
	static const char *const tus[] = { "src/backend/utils/mmgr/aset.c", "src/backend/utils/mmgr/mcxt.c",
					   "src/port/snprintf.c", "contrib/x/x.c" };
	struct { const char *text; size_t n; const char *first; } cases[] = {
		{ "[global]\ncflags += -O3\n", 0, NULL },
		{ "[src/backend/utils/mmgr/aset.c]\ncflags += -O3\n", 0, NULL },
		{ "[src/**]\n[contrib/**/*.c]\n[/src/port/snprintf.c]\n", 0, NULL },
		{ "[global]\ncflags += -O2\n[src/core/hto.c]\ncflags += -O3\n", 1,
		  "/p/x.policy:3: section [src/core/hto.c] matched none of the 4 translation units compiled" },
		{ "[src/backend/utils/mmgr/{aset,mcxxt,slab}.c]\n", 2,
		  "/p/x.policy:1: section [src/backend/utils/mmgr/{aset,mcxxt,slab}.c]: its pattern src/backend/utils/mmgr/mcxxt.c matched none of the 4 translation units compiled" },
		{ "[src/{a,b}.c]\n", 1,
		  "/p/x.policy:1: section [src/{a,b}.c] matched none of the 4 translation units compiled" },
		/* an empty section is a section all the same */
		{ "[src/nothing.c]\n[src/port/*.c]\n", 1,
		  "/p/x.policy:1: section [src/nothing.c] matched none of the 4 translation units compiled" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct policy p;
		struct strbuf err = STRBUF_INIT;
		struct strvec out = STRVEC_INIT;
		size_t n;
		if (parse(cases[i].text, &p, &err) != 0)
			fail_msg("rejected <%s>: %s", cases[i].text, err.buf);
		n = policy_unmatched(&p, tus, sizeof(tus) / sizeof(tus[0]), &out);
		if (n != cases[i].n || out.nr != n)
			fail_msg("case %zu: %zu unmatched (%zu lines), want %zu", i, n, out.nr, cases[i].n);
		if (cases[i].first && strcmp(out.v[0], cases[i].first))
			fail_msg("case %zu: got  <%s>\nwant <%s>", i, out.v[0], cases[i].first);
		/* no unit at all: every section but [global] */
		strvec_clear(&out);
		n = policy_unmatched(&p, NULL, 0, &out);
		for (size_t k = 0; k < p.nr_sections; k++)
			if (!p.sections[k].global && !strstr(out.nr ? out.v[0] : "", "none of the 0"))
				fail_msg("case %zu: with no unit, no line for section %zu", i, k);
		strvec_clear(&out);
		policy_release(&p);
		strbuf_release(&err);
	}
}

static void test_nul_byte(void **state)
{
	struct policy p;
	struct strbuf err = STRBUF_INIT;
	(void)state;
	assert_int_equal(policy_parse(&p, "/p/x.policy", "[global]\0x", 10, &err), -1);
	assert_string_equal(err.buf, "/p/x.policy:1: expected a text file (found a NUL byte)");
	policy_release(&p);
	/* at the line it is on, not line 1 */
	strbuf_reset(&err);
	assert_int_equal(policy_parse(&p, "/p/x.policy", "[global]\n# c\ncflags += -O3\0\n", 27, &err), -1);
	assert_string_equal(err.buf, "/p/x.policy:3: expected a text file (found a NUL byte)");
	policy_release(&p);
	/* after a byte-order mark too */
	strbuf_reset(&err);
	assert_int_equal(policy_parse(&p, "/p/x.policy", "\xEF\xBB\xBF[global]\n\0", 13, &err), -1);
	assert_string_equal(err.buf, "/p/x.policy:2: expected a text file (found a NUL byte)");
	policy_release(&p);
	strbuf_release(&err);
}

/* A table's rows: sorted by strcmp(), each with a type, a refusal with a
 * class (and, for the compiler's, a reason) and never link-only, a valued
 * row ending in '=' or '-', a list of words where the type needs one. */
static void check_rows(const char *what, const struct vocab_row *t, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (strcmp(t[i - 1].name, t[i].name) >= 0)
			fail_msg("%s table not sorted: \"%s\" before \"%s\"", what, t[i - 1].name, t[i].name);
	for (size_t i = 0; i < n; i++) {
		const struct vocab_row *r = &t[i];
		size_t len = strlen(r->name);
		int refusal = r->type == VOCAB_FAMILY || r->type == VOCAB_REFUSED;
		if (r->type < VOCAB_EXACT || r->type > VOCAB_REFUSED)
			fail_msg("%s row %s: no type", what, r->name);
		if (refusal && (r->cls == VOCAB_OK || (!r->why && r->cls != VOCAB_OTHER)))
			fail_msg("%s row %s: a refusal without a class or a reason", what, r->name);
		if (refusal && (r->flags & VOCAB_LINK_ONLY))
			fail_msg("%s row %s: link-only refusal", what, r->name);
		if ((r->type == VOCAB_INT || r->type == VOCAB_WORDS || r->type == VOCAB_ALIGN ||
		     r->type == VOCAB_TEXT) && (!len || !strchr("=-", r->name[len - 1])))
			fail_msg("%s row %s: a valued row's name ends in '=' or '-'", what, r->name);
		if (r->type == VOCAB_WORDS && (!r->values || !*r->values))
			fail_msg("%s row %s: no words", what, r->name);
	}
}

/* The vocabulary's tables: sorted, every row typed, every refusal with a
 * class; the longest row decides. */
static void test_vocab_table(void **state)
{
	size_t n;
	const struct vocab_row *t = vocab_table(&n);
	struct strbuf why = STRBUF_INIT;
	(void)state;
	assert_true(n > 500);
	check_rows("vocab", t, n);
	t = vocab_bolt_table(&n);
	assert_true(n > 100);
	check_rows("bolt", t, n);
	{
		size_t np;
		const struct vocab_param *pt = vocab_params(&np);
		assert_true(np > 200);
		for (size_t i = 1; i < np; i++)
			if (strcmp(pt[i - 1].name, pt[i].name) >= 0)
				fail_msg("params not sorted: \"%s\" before \"%s\"", pt[i - 1].name, pt[i].name);
		for (size_t i = 0; i < np; i++)
			if (pt[i].max >= 0 && pt[i].max < pt[i].min)
				fail_msg("param %s: range %ld to %ld", pt[i].name, pt[i].min, pt[i].max);
	}
	/* the longest row wins; -fno-X is -fX */
	assert_int_equal(vocab_check("-fplugin-arg-pgopt-x=1", 0, &why), VOCAB_CODE);
	assert_int_equal(vocab_check("-fno-sanitize=all", 0, &why), VOCAB_CODE);
	assert_int_equal(vocab_check("-fuse-ld=mold", 1, &why), VOCAB_OK);
	assert_int_equal(vocab_check("-fuse-ld=mold", 0, &why), VOCAB_OTHER);
	assert_int_equal(vocab_check("-floop-nest-optimize", 0, &why), VOCAB_OK);
	assert_int_equal(vocab_check("-Waddress", 0, &why), VOCAB_OK);   /* not -Wa, */
	assert_int_equal(vocab_check("-Wpedantic", 0, &why), VOCAB_OK);  /* not -Wp, */
	assert_int_equal(vocab_check("-Wlogical-op", 1, &why), VOCAB_OK); /* not -Wl, */
	assert_int_equal(vocab_check("-pg", 0, &why), VOCAB_OUTPUT);
	strbuf_reset(&why);
	assert_int_equal(vocab_check("-pipe", 0, &why), VOCAB_UNKNOWN);
	/* no suggestion of another kind (-fpie), a refused row (-fprofile-use)
	 * or a link option in cflags (-pie: in ldflags it is one) */
	assert_string_equal(why.buf, "it is not an optimization option the vocabulary knows");
	strbuf_reset(&why);
	assert_int_equal(vocab_check("-pipe", 1, &why), VOCAB_UNKNOWN);
	assert_string_equal(why.buf,
			    "it is not an optimization option the vocabulary knows (did you mean -pie?)");
	strbuf_reset(&why);
	assert_int_equal(vocab_check("-fprofle-use", 0, &why), VOCAB_UNKNOWN);
	assert_string_equal(why.buf, "it is not an optimization option the vocabulary knows");
	strbuf_reset(&why);
	assert_int_equal(vocab_check("-Wl,--hash-style=/x", 1, &why), VOCAB_PATH);
	{
		/* -fno- of any length is normalised (no fixed buffer to slip past) */
		char longflag[600];
		snprintf(longflag, sizeof(longflag), "-fno-sanitize=%0500d", 0);
		assert_int_equal(vocab_check(longflag, 0, &why), VOCAB_CODE);
	}
	strbuf_release(&why);
}

/*
 * The allow-list, flag by flag: what the repository's policies, examples,
 * tune candidates and suites use is taken, in cflags (0) or ldflags (1);
 * everything else is refused with its class.
 */
static void test_vocab_flags(void **state)
{
	static const struct { const char *flag; int link; } taken[] = {
		/* examples/, examples/tune-candidates.txt, tests/t, tests/pg */
		{ "-O1", 0 }, { "-O2", 0 }, { "-O3", 0 }, { "-Os", 0 }, { "-Og", 0 }, { "-Oz", 0 },
		{ "-O", 0 }, { "-g", 0 }, { "-g1", 0 }, { "-g3", 0 }, { "-ggdb", 0 }, { "-gdwarf-4", 0 },
		{ "-gdwarf-5", 0 }, { "-gno-record-gcc-switches", 0 }, { "-gz=zlib", 0 },
		{ "-finline-functions", 0 }, { "-fno-plt", 0 }, { "-fno-semantic-interposition", 0 },
		{ "-fomit-frame-pointer", 0 }, { "-fno-omit-frame-pointer", 0 }, { "-fno-ident", 0 },
		{ "-flto", 0 }, { "-flto=auto", 0 }, { "-flto=thin", 0 }, { "-flto=2", 0 }, { "-fno-lto", 0 },
		{ "-flto-partition=one", 0 }, { "-ffat-lto-objects", 0 }, { "-fuse-linker-plugin", 1 },
		{ "-march=native", 0 }, { "-march=x86-64-v3", 0 }, { "-march=znver4", 0 },
		{ "-mtune=generic", 0 }, { "-mno-avx512f", 0 }, { "-mprefer-vector-width=256", 0 },
		{ "-mstringop-strategy=unrolled_loop", 0 }, { "-minline-all-stringops", 0 }, { "-m64", 0 },
		{ "--param=max-inline-insns-auto=30", 0 }, { "--param=inline-unit-growth=80", 0 },
		{ "-fno-reorder-blocks-and-partition", 0 }, { "-freorder-blocks-and-partition", 0 },
		{ "-fno-early-inlining", 0 }, { "-finline-limit=1000", 0 }, { "-fno-inline-small-functions", 0 },
		{ "-fno-tree-forwprop", 0 }, { "-ffunction-sections", 0 }, { "-fdata-sections", 0 },
		{ "-frecord-gcc-switches", 0 }, { "-fno-builtin", 0 }, { "-frandom-seed=a%3Db=c", 0 },
		{ "-fipa-pta", 0 }, { "-floop-nest-optimize", 0 }, { "-fopenmp-simd", 0 }, { "-fPIC", 0 },
		{ "-fpie", 0 }, { "-fstack-protector-strong", 0 }, { "-fcf-protection=full", 0 },
		{ "-fstack-clash-protection", 0 }, { "-fopt-info-inline-optimized", 0 }, { "-fopt-info", 0 },
		{ "-fexcess-precision=standard", 0 }, { "-fno-strict-aliasing", 0 }, { "-fwrapv", 0 },
		{ "-falign-functions=32", 0 }, { "-falign-loops=16:11:8", 0 }, { "-fvect-cost-model=cheap", 0 },
		{ "-ftls-model=initial-exec", 0 }, { "-ftrivial-auto-var-init=zero", 0 },
		/* clang's spellings */
		{ "-fsplit-machine-functions", 0 }, { "-fvectorize", 0 }, { "-gline-tables-only", 0 },
		{ "-fbasic-block-sections=labels", 0 },
		/* warnings */
		{ "-Wall", 0 }, { "-Werror", 0 }, { "-Wno-error=coverage-mismatch", 0 }, { "-Wno-unused", 0 },
		{ "-Werror=format-security", 0 }, { "-Wframe-larger-than=4096", 0 }, { "-w", 0 },
		{ "-pedantic", 0 },
		/* links */
		{ "-Wl,-O1", 1 }, { "-Wl,--gc-sections", 1 }, { "-Wl,--emit-relocs", 1 }, { "-Wl,-z,now", 1 },
		{ "-Wl,-O1,--sort-common,--as-needed,-z,relro,-z,now", 1 }, { "-Wl,--build-id=md5", 1 },
		{ "-fuse-ld=lld", 1 }, { "-fuse-ld=gold", 1 }, { "-pie", 1 }, { "-no-pie", 1 }, { "-O2", 1 },
		/* hardening rows: known, the hardening check decides */
		{ "-D_FORTIFY_SOURCE=2", 0 }, { "-U_FORTIFY_SOURCE", 0 }, { "-fno-stack-protector", 0 },
		{ "-fno-pie", 0 },
	};
	static const struct { const char *flag; int link; enum vocab_class cls; } refused[] = {
		{ "-fcall-graph", 0, VOCAB_UNKNOWN }, { "-O4", 0, VOCAB_UNKNOWN }, { "-pipe", 0, VOCAB_UNKNOWN },
		{ "-fvisibility=hidden", 0, VOCAB_UNKNOWN }, { "-mregparm=3", 0, VOCAB_UNKNOWN },
		{ "-mpc32", 0, VOCAB_UNKNOWN }, { "-fno-lto=auto", 0, VOCAB_UNKNOWN },
		{ "-fnope", 0, VOCAB_UNKNOWN }, { "-mno-march=native", 0, VOCAB_UNKNOWN },
		{ "-fplugin=/x.so", 0, VOCAB_CODE }, { "-fplugin-arg-pgopt-x=1", 0, VOCAB_CODE },
		{ "-fno-sanitize=all", 0, VOCAB_CODE }, { "-fopenmp", 0, VOCAB_CODE }, { "-l:x.so", 1, VOCAB_CODE },
		{ "-ftree-parallelize-loops=4", 0, VOCAB_CODE }, { "-finstrument-functions", 0, VOCAB_CODE },
		{ "-fuse-ld=evil", 1, VOCAB_CODE }, { "-B/x", 0, VOCAB_CODE }, { "-wrapper", 0, VOCAB_CODE },
		{ "-I/x", 0, VOCAB_PATH }, { "-march=/x", 0, VOCAB_PATH }, { "-frandom-seed=/x", 0, VOCAB_PATH },
		{ "--param=max-inline-insns-auto=/x", 0, VOCAB_PATH }, { "-Wl,-rpath,/x", 1, VOCAB_PATH },
		{ "-fdebug-prefix-map=/a=/b", 0, VOCAB_PATH },
		{ "-o", 0, VOCAB_OUTPUT }, { "-E", 0, VOCAB_OUTPUT }, { "-fdump-tree-all", 0, VOCAB_OUTPUT },
		{ "-fprofile-use", 0, VOCAB_OUTPUT }, { "-fopt-info=x.txt", 0, VOCAB_OUTPUT },
		{ "-gsplit-dwarf", 0, VOCAB_OUTPUT }, { "-pg", 0, VOCAB_OUTPUT }, { "-mllvm", 0, VOCAB_OUTPUT },
		{ "-DX", 0, VOCAB_OTHER }, { "-std=c11", 0, VOCAB_OTHER }, { "-shared", 1, VOCAB_OTHER },
		{ "-static", 1, VOCAB_OTHER }, { "-flto=bogus", 0, VOCAB_OTHER }, { "-gdwarf-7", 0, VOCAB_OTHER },
		{ "-march=pentium99", 0, VOCAB_OTHER }, { "--param=no-such=1", 0, VOCAB_OTHER },
		{ "--param=max-inline-insns-auto=", 0, VOCAB_OTHER }, { "--param=max-inline-insns-auto", 0, VOCAB_OTHER },
		{ "-no-pie", 0, VOCAB_OTHER }, { "-Wl,-O1", 0, VOCAB_OTHER }, { "-Wl,-z,execstack", 1, VOCAB_OTHER },
		{ "-O2x", 0, VOCAB_UNKNOWN }, { "-fipa-pta=1", 0, VOCAB_UNKNOWN },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) {
		struct strbuf why = STRBUF_INIT;
		if (vocab_check(taken[i].flag, taken[i].link, &why) != VOCAB_OK)
			fail_msg("refused %s (%s): %s", taken[i].flag, taken[i].link ? "ldflags" : "cflags", why.buf);
		strbuf_release(&why);
	}
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		struct strbuf why = STRBUF_INIT;
		enum vocab_class c = vocab_check(refused[i].flag, refused[i].link, &why);
		if (c != refused[i].cls || !why.len)
			fail_msg("%s: class %d (%s), want %d", refused[i].flag, c, why.buf, refused[i].cls);
		strbuf_release(&why);
	}
}

/* The repository's own policies and tune candidates: accepted, and only
 * the no-pie ones weaken anything (pie), which the caller must allow. */
static void test_vocab_examples(void **state)
{
	static const struct { const char *file; unsigned weakens; } examples[] = {
		{ "bolt-ready.policy", 0 }, { "coscup-2017.policy", 0 },
		{ "coscup-no-pie.policy", 1u << VOCAB_HARD_PIE }, { "debug-symbols.policy", 0 },
		{ "hot-inline.policy", 0 }, { "march-native.policy", 0 },
		{ "no-pie.policy", 1u << VOCAB_HARD_PIE },
	};
	char *dir = xstrdup(__FILE__), *slash = strrchr(dir, '/');
	(void)state;
	if (slash)
		*slash = '\0';
	for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		char *path = xasprintf("%s/../../examples/%s", slash ? dir : "tests/unit", examples[i].file);
		struct policy p;
		struct strbuf err = STRBUF_INIT;
		int r = policy_load(&p, path, 0, &err);
		if (examples[i].weakens) {
			if (r == 0)
				fail_msg("%s: accepted without the caller's consent", path);
			assert_non_null(strstr(err.buf, "allow it with PGOPT_WEAKEN=pie"));
			policy_release(&p);
			strbuf_reset(&err);
			r = policy_load(&p, path, POLICY_WEAKEN(examples[i].weakens), &err);
		}
		if (r != 0)
			fail_msg("%s: %s", path, err.buf);
		assert_int_equal(policy_weakens(&p), examples[i].weakens);
		policy_release(&p);
		strbuf_release(&err);
		free(path);
	}
	{
		char *path = xasprintf("%s/../../examples/tune-candidates.txt", slash ? dir : "tests/unit");
		struct strbuf text = STRBUF_INIT;
		struct strvec lines = STRVEC_INIT;
		assert_int_equal(sfs_read(AT_FDCWD, path, SFS_IN_TEXT, 0, &text, NULL) > 0, 1);
		for (char *line = strtok(text.buf, "\n"); line; line = strtok(NULL, "\n")) {
			struct strvec w = STRVEC_INIT;
			if (strchr(line, '#'))
				*strchr(line, '#') = '\0';
			strvec_split(&w, line);
			for (size_t k = 0; k < w.nr; k++)
				if (policy_forbidden_add(w.v[k]))
					fail_msg("tune candidate %s refused: %s", w.v[k], policy_forbidden_add(w.v[k]));
			strvec_clear(&w);
		}
		strvec_clear(&lines);
		strbuf_release(&text);
		free(path);
	}
	free(dir);
}

/* llvm-bolt's options: pgbuild's default set and what the docs and suites
 * use are taken; what names a path, prints or writes, takes a library or
 * is pgbuild's own is refused with its class. */
static void test_bolt_vocab(void **state)
{
	static const char *const taken[] = {
		"-reorder-blocks=ext-tsp", "-reorder-functions=hfsort+", "-reorder-functions=hfsort",
		"-reorder-functions=cdsort", "-reorder-functions=none", "-split-functions", "-split-all-cold",
		"-split-eh", "-icf=1", "-icf", "--icf=all", "-use-gnu-stack", "-dyno-stats", "--dyno-stats",
		"-plt=hot", "-plt=all", "-hugify", "-peepholes=all", "-update-debug-sections",
		"-jump-tables=move", "-align-macro-fusion=all", "--reorder-blocks=cache+", "-lite=false",
		"-frame-opt=hot", "-indirect-call-promotion=calls", "-skip-funcs=foo,bar.*",
		"-thread-count=4", "-split-strategy=cdsplit", "-tail-duplication=cache",
	};
	static const struct { const char *word; enum vocab_class cls; } refused[] = {
		{ "-runtime-instrumentation-lib=/tmp/x.a", VOCAB_CODE },
		{ "-runtime-hugify-lib=x.a", VOCAB_CODE },
		{ "-o", VOCAB_OTHER }, { "-o=/tmp/x", VOCAB_OTHER }, { "-w", VOCAB_OTHER },
		{ "-data=x", VOCAB_OTHER }, { "--data2=x", VOCAB_OTHER }, { "-b", VOCAB_OTHER },
		{ "-instrument", VOCAB_OTHER }, { "-instrumentation-file=x", VOCAB_OTHER },
		{ "-generate-function-order=FILE", VOCAB_OUTPUT }, { "-generate-link-sections=x", VOCAB_OUTPUT },
		{ "-function-order=/root/secret", VOCAB_PATH }, { "-funcs-file=x", VOCAB_PATH },
		{ "-skip-funcs-file=x", VOCAB_PATH }, { "-dwarf-output-path=/x", VOCAB_PATH },
		{ "-skip-funcs=a/b", VOCAB_PATH },
		{ "-asm-dump", VOCAB_OUTPUT }, { "-asm-dump=/tmp", VOCAB_OUTPUT }, { "-print-cfg", VOCAB_OUTPUT },
		{ "-print-only=/x", VOCAB_OUTPUT }, { "-dump-dot-all", VOCAB_OUTPUT }, { "-v=1", VOCAB_OUTPUT },
		{ "-keep-tmp", VOCAB_OUTPUT }, { "-write-dwp", VOCAB_OUTPUT }, { "-dyno-stats-all", VOCAB_OUTPUT },
		{ "-help-hidden", VOCAB_OUTPUT }, { "--version", VOCAB_OUTPUT }, { "-time-opts", VOCAB_OUTPUT },
		{ "-reorder-blocks=bogus", VOCAB_OTHER }, { "-thread-count=x", VOCAB_OTHER },
		{ "-icf=2", VOCAB_OTHER }, { "-split-functions=3", VOCAB_OTHER },
		{ "-output-y", VOCAB_UNKNOWN }, { "-check-encoding", VOCAB_UNKNOWN }, { "reorder", VOCAB_UNKNOWN },
		{ "--", VOCAB_UNKNOWN }, { "---icf", VOCAB_UNKNOWN },
	};
	struct strvec def = STRVEC_INIT;
	(void)state;
	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) {
		struct strbuf why = STRBUF_INIT;
		if (vocab_bolt_check(taken[i], &why) != VOCAB_OK)
			fail_msg("refused %s: %s", taken[i], why.buf);
		strbuf_release(&why);
	}
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		struct strbuf why = STRBUF_INIT;
		enum vocab_class c = vocab_bolt_check(refused[i].word, &why);
		if (c != refused[i].cls || !why.len)
			fail_msg("%s: class %d (%s), want %d", refused[i].word, c, why.buf, refused[i].cls);
		strbuf_release(&why);
	}
	/* pgbuild's own default layout flags (pgbuild/bolt/bolt.h's
	 * BOLT_OPTIMIZE_FLAGS, as of this test) */
	strvec_split(&def, "-reorder-blocks=ext-tsp -reorder-functions=hfsort+ -split-functions "
		     "-split-all-cold -split-eh -icf=1 -use-gnu-stack -dyno-stats");
	for (size_t i = 0; i < def.nr; i++) {
		struct strbuf why = STRBUF_INIT;
		assert_int_equal(vocab_bolt_check(def.v[i], &why), VOCAB_OK);
		strbuf_release(&why);
	}
	strvec_clear(&def);
}

/*
 * Hardening: each weakening is refused, naming the class and how to allow
 * it; the caller's PGOPT_WEAKEN for that class (and no other) lets it
 * through, marked in its op and with a warning; applied, the compile's
 * result names the class, and a removal only when it removed something.
 */
static void test_hardening(void **state)
{
	static const struct { const char *line; enum vocab_hardening h; const char *in; } cases[] = {
		{ "cflags += -fno-stack-protector", VOCAB_HARD_STACK_PROTECTOR, NULL },
		{ "cflags += -fstack-protector", VOCAB_HARD_STACK_PROTECTOR, NULL },
		{ "cflags -= -fstack-protector-strong", VOCAB_HARD_STACK_PROTECTOR, "-fstack-protector-strong" },
		{ "cflags += -fcf-protection=none", VOCAB_HARD_CET, NULL },
		{ "cflags += -fcf-protection=branch", VOCAB_HARD_CET, NULL },
		{ "cflags += -mmanual-endbr", VOCAB_HARD_CET, NULL },
		{ "cflags -= -fcf-protection", VOCAB_HARD_CET, "-fcf-protection" },
		{ "cflags += -fno-pie", VOCAB_HARD_PIE, NULL },
		{ "cflags += -fno-PIE", VOCAB_HARD_PIE, NULL },
		{ "cflags -= -fPIE", VOCAB_HARD_PIE, "-fPIE" },
		{ "ldflags += -no-pie", VOCAB_HARD_PIE, NULL },
		{ "ldflags -= -pie", VOCAB_HARD_PIE, "-pie" },
		{ "ldflags += -Wl,-z,norelro", VOCAB_HARD_RELRO, NULL },
		{ "ldflags += -Wl,-znorelro", VOCAB_HARD_RELRO, NULL },
		{ "ldflags -= -Wl,-z,relro", VOCAB_HARD_RELRO, "-Wl,-z,relro" },
		{ "ldflags += -Wl,-z,lazy", VOCAB_HARD_BIND_NOW, NULL },
		{ "ldflags -= -Wl,-z,now", VOCAB_HARD_BIND_NOW, "-Wl,-z,now" },
		{ "cflags += -U_FORTIFY_SOURCE", VOCAB_HARD_FORTIFY, NULL },
		{ "cflags += -D_FORTIFY_SOURCE=0", VOCAB_HARD_FORTIFY, NULL },
		{ "cflags += -O0", VOCAB_HARD_FORTIFY, NULL },
		{ "cflags -= -D_FORTIFY_SOURCE=2", VOCAB_HARD_FORTIFY, "-D_FORTIFY_SOURCE=2" },
		{ "cflags += -fno-stack-clash-protection", VOCAB_HARD_STACK_CLASH, NULL },
		{ "cflags -= -fstack-clash-protection", VOCAB_HARD_STACK_CLASH, "-fstack-clash-protection" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = xasprintf("[global]\n%s\n", cases[i].line);
		const char *name = vocab_hardening_name(cases[i].h);
		unsigned mask = 1u << cases[i].h;
		int link = cases[i].line[0] == 'l';
		struct strbuf err = STRBUF_INIT, want = STRBUF_INIT;
		struct strvec args = STRVEC_INIT;
		struct policy_result res;
		struct policy p;

		/* refused, naming the class and the switch */
		if (policy_parse(&p, "/p/x.policy", text, strlen(text), &err) != -1)
			fail_msg("accepted without the caller's consent: %s", cases[i].line);
		strbuf_addf(&want, "it weakens the build's hardening (%s: ", name);
		if (!strstr(err.buf, want.buf) || !strstr(err.buf, "allow it with PGOPT_WEAKEN=") ||
		    !strstr(err.buf, "pgbuild --weaken "))
			fail_msg("case %zu: <%s>", i, err.buf);
		policy_release(&p);
		/* ... with another class allowed, still refused; with
		 * everything unchecked but the weakening, too */
		strbuf_reset(&err);
		if (policy_parse_flags(&p, "/p/x.policy", text, strlen(text),
				       POLICY_UNCHECKED_FLAGS | POLICY_WEAKEN(VOCAB_HARD_ALL & ~mask),
				       &err) != -1)
			fail_msg("accepted with the other classes: %s", cases[i].line);
		policy_release(&p);
		/* allowed: marked, said */
		strbuf_reset(&err);
		if (policy_parse_flags(&p, "/p/x.policy", text, strlen(text), POLICY_WEAKEN(mask), &err))
			fail_msg("refused with %s allowed: %s", name, err.buf);
		assert_int_equal(p.sections[0].ops[0].weakens, mask);
		assert_int_equal(policy_weakens(&p), mask);
		assert_int_equal(p.warnings.nr, 1);
		strbuf_reset(&want);
		strbuf_addf(&want, "used because the caller allowed weakening %s (weaken: pgbuild --weaken, "
			      "--pgopt-weaken or PGOPT_WEAKEN)", name);
		assert_non_null(strstr(p.warnings.v[0], want.buf));
		/* applied: a link for ldflags, a compile for cflags */
		strvec_pushl(&args, "-O2", link ? "-o" : "-c", link ? "prog" : "a.c", NULL);
		if (cases[i].in)
			strvec_push(&args, cases[i].in);
		policy_apply(&p, link ? NULL : "a.c", &args, &res);
		assert_int_equal(res.weakened, mask);
		policy_result_release(&res);
		/* a removal that removes nothing weakens nothing */
		if (cases[i].in) {
			strvec_clear(&args);
			strvec_pushl(&args, "-O2", link ? "-o" : "-c", link ? "prog" : "a.c", NULL);
			policy_apply(&p, link ? NULL : "a.c", &args, &res);
			assert_int_equal(res.weakened, 0);
			policy_result_release(&res);
		}
		strvec_clear(&args);
		policy_release(&p);
		strbuf_release(&err);
		strbuf_release(&want);
		free(text);
	}
	/* the forbidden_* checks (tune's candidates) refuse a weakening; the
	 * one check with the caller's classes takes it */
	assert_non_null(policy_forbidden_add("-fno-pie"));
	assert_non_null(policy_forbidden_remove("-fstack-protector-strong"));
	assert_null(policy_refusal("-fno-pie", 1, 0, POLICY_WEAKEN(1u << VOCAB_HARD_PIE)));
	assert_null(policy_forbidden_add("-fstack-protector-strong"));
}

/* PGOPT_WEAKEN's list: names, blanks and empty items; an unknown name is
 * an error naming the classes and the nearest one. */
static void test_weaken_list(void **state)
{
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	unsigned mask = 0;
	(void)state;
	assert_int_equal(vocab_parse_weaken("pie, relro,,bind-now", &mask, &err), 0);
	assert_int_equal(mask, (1u << VOCAB_HARD_PIE) | (1u << VOCAB_HARD_RELRO) | (1u << VOCAB_HARD_BIND_NOW));
	vocab_weaken_text(mask, &text);
	assert_string_equal(text.buf, "pie,relro,bind-now");
	mask = 0;
	assert_int_equal(vocab_parse_weaken("", &mask, &err), 0);
	assert_int_equal(mask, 0);
	assert_int_equal(vocab_parse_weaken("stack-protector,cet,pie,relro,bind-now,fortify,stack-clash",
					    &mask, &err), 0);
	assert_int_equal(mask, VOCAB_HARD_ALL);
	mask = 0;
	assert_int_equal(vocab_parse_weaken("pie,relr0", &mask, &err), -1);
	assert_string_equal(err.buf, "unknown hardening class \"relr0\": expected a comma-separated list of stack-protector, cet, pie, relro, bind-now, fortify or stack-clash (did you mean \"relro\"?)");
	assert_int_equal(mask, 0);
	strbuf_reset(&err);
	assert_int_equal(vocab_parse_weaken("all", &mask, &err), -1);
	strbuf_release(&err);
	strbuf_release(&text);
}

/* The caller's switch (PGOPT_UNCHECKED_FLAGS=1): flags outside the
 * vocabulary are used, each a warning and marked; the semantic and ABI
 * refusals stay. */
static void test_unchecked(void **state)
{
	struct policy p;
	struct strbuf err = STRBUF_INIT;
	struct strvec args = STRVEC_INIT;
	struct policy_result res;
	const char *text = "[global]\ncflags += -O2 '-DX=a b' -fplugin=/x.so\n";
	(void)state;
	assert_int_equal(policy_parse(&p, "/p/x.policy", text, strlen(text), &err), -1);
	policy_release(&p);
	strbuf_reset(&err);
	assert_int_equal(policy_parse_flags(&p, "/p/x.policy", text, strlen(text), POLICY_UNCHECKED_FLAGS, &err), 0);
	assert_int_equal(p.warnings.nr, 2);
	assert_string_equal(p.warnings.v[0],
			    "/p/x.policy:2: cflags += -DX=a b is outside the policy vocabulary (it is not an optimization option (a macro definition changes the program, not how it is optimized)): used because the caller allowed unchecked flags (unchecked-flags: --pgopt-unchecked-flags or PGOPT_UNCHECKED_FLAGS)");
	assert_null(p.sections[0].ops[0].unchecked);
	assert_non_null(p.sections[0].ops[1].unchecked);
	strvec_pushl(&args, "-c", "a.c", NULL);
	policy_apply(&p, "a.c", &args, &res);
	assert_int_equal(res.unchecked.nr, 2);
	assert_string_equal(res.unchecked.v[0], "-DX=a b");
	assert_string_equal(res.unchecked.v[1], "-fplugin=/x.so");
	assert_int_equal(strvec_find(&args, "-DX=a b") >= 0, 1);
	policy_result_release(&res);
	strvec_clear(&args);
	policy_release(&p);
	/* never the fast-math family, the ABI or the required flags, and no
	 * weakening of the hardening: that is a switch of its own */
	text = "[global]\ncflags += -fno-pie\n";
	assert_int_equal(policy_parse_flags(&p, "/p/x.policy", text, strlen(text), POLICY_UNCHECKED_FLAGS, &err), -1);
	policy_release(&p);
	text = "[global]\ncflags += -ffast-math\n";
	assert_int_equal(policy_parse_flags(&p, "/p/x.policy", text, strlen(text), POLICY_UNCHECKED, &err), -1);
	policy_release(&p);
	text = "[global]\ncflags += -fshort-enums\n";
	assert_int_equal(policy_parse_flags(&p, "/p/x.policy", text, strlen(text), POLICY_UNCHECKED, &err), -1);
	policy_release(&p);
	text = "[global]\ncflags -= -fwrapv\n";
	assert_int_equal(policy_parse_flags(&p, "/p/x.policy", text, strlen(text), POLICY_UNCHECKED, &err), -1);
	policy_release(&p);
	strbuf_release(&err);
}

/* The profile mode pgbuild pgo sets (PGOPT_PROFILE). */
static void test_profile(void **state)
{
	struct policy_profile pp;
	struct strbuf err = STRBUF_INIT;
	static const struct { const char *tu, *mode, *in, *out; int llvm; } cases[] = {
		{ "src/backend/utils/hash/dynahash.c", "generate src/backend/** src/pl/**", "-c x.c",
		  "-c x.c -fprofile-generate -ftest-coverage", 0 },
		{ "src/port/snprintf.c", "generate src/backend/** src/pl/**", "-c x.c", "-c x.c", 0 },
		{ NULL, "generate src/backend/**", "-o postgres a.o", "-o postgres a.o -fprofile-generate", 0 },
		{ "src/backend/utils/mmgr/aset.c", "use src/backend/utils/{mmgr,hash}/*.c", "-c x.c",
		  "-c x.c -fprofile-use -fprofile-partial-training -Wno-error=coverage-mismatch", 0 },
		{ NULL, "use src/backend/**", "-o postgres a.o", "-o postgres a.o", 0 },
		{ "src/port/snprintf.c", "generate", "-c x.c", "-c x.c -fprofile-generate -ftest-coverage", 0 },
		/* clang: no notes file; one merged profile named by use=FILE */
		{ "src/backend/a.c", "generate src/backend/**", "-c x.c", "-c x.c -fprofile-generate", 1 },
		{ "src/port/snprintf.c", "generate src/backend/**", "-c x.c", "-c x.c", 1 },
		{ NULL, "generate src/backend/**", "-o postgres a.o", "-o postgres a.o -fprofile-generate", 1 },
		{ "src/backend/a.c", "use=/b/pgo.profdata src/backend/**", "-c x.c",
		  "-c x.c -fprofile-use=/b/pgo.profdata", 1 },
		{ "src/port/snprintf.c", "use=/b/pgo.profdata src/backend/**", "-c x.c", "-c x.c", 1 },
		{ NULL, "use=/b/pgo.profdata", "-o postgres a.o", "-o postgres a.o", 1 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strvec args = STRVEC_INIT;
		struct policy_result res = { 0 };
		struct strbuf got = STRBUF_INIT;
		strvec_init(&res.added);
		assert_int_equal(policy_profile_parse(&pp, cases[i].mode, &err), 0);
		strvec_split(&args, cases[i].in);
		assert_null(policy_profile_check(&pp, cases[i].llvm));
		policy_profile_apply(&pp, cases[i].tu, cases[i].llvm, &args, &res);
		for (size_t j = 0; j < args.nr; j++)
			strbuf_addf(&got, "%s%s", j ? " " : "", args.v[j]);
		if (strcmp(got.buf, cases[i].out))
			fail_msg("case %zu: got <%s>, want <%s>", i, got.buf, cases[i].out);
		assert_int_equal(res.changed, strcmp(cases[i].in, cases[i].out) != 0);
		strvec_clear(&res.added);
		strvec_clear(&args);
		strbuf_release(&got);
		policy_profile_release(&pp);
	}
	assert_int_equal(policy_profile_parse(&pp, "instrument", &err), -1);
	assert_string_equal(err.buf, "expected generate, use or use=FILE, then the units' globs, got \"instrument\"");
	policy_profile_release(&pp);
	strbuf_reset(&err);
	assert_int_equal(policy_profile_parse(&pp, "use=pgo.profdata", &err), -1);
	assert_string_equal(err.buf, "expected use=FILE with FILE an absolute path (the merged .profdata), got \"use=pgo.profdata\"");
	policy_profile_release(&pp);
	/* each compiler refuses the other's use mode */
	assert_int_equal(policy_profile_parse(&pp, "use", &err), 0);
	assert_string_equal(policy_profile_check(&pp, 1),
			    "clang reads one merged profile: expected use=FILE (the .profdata)");
	assert_null(policy_profile_check(&pp, 0));
	policy_profile_release(&pp);
	assert_int_equal(policy_profile_parse(&pp, "use=/p.profdata", &err), 0);
	assert_non_null(policy_profile_check(&pp, 0));
	assert_null(policy_profile_check(&pp, 1));
	policy_profile_release(&pp);
	strbuf_reset(&err);
	assert_int_equal(policy_profile_parse(&pp, "use src/{a", &err), -1);
	assert_string_equal(err.buf, "bad glob \"src/{a\": expected '}' closing the '{' alternatives");
	policy_profile_release(&pp);
	strbuf_release(&err);
}

static void test_globs(void **state)
{
	struct { const char *glob, *path; int match; } cases[] = {
		{ "src/backend/utils/mmgr/*.c", "src/backend/utils/mmgr/aset.c", 1 },
		{ "src/backend/utils/mmgr/*.c", "src/backend/utils/mmgr/sub/aset.c", 0 },
		{ "src/backend/*.c", "src/backend/utils/x.c", 0 },
		{ "src/backend/**.c", "src/backend/utils/x.c", 1 },
		{ "src/backend/**/x.c", "src/backend/x.c", 1 },
		{ "src/backend/**/x.c", "src/backend/a/b/x.c", 1 },
		{ "src/backend/**/x.c", "src/backend/a/b/y.c", 0 },
		{ "src/**", "src/a/b/c.c", 1 },
		{ "**", "anything/at/all.c", 1 },
		{ "**/aset.c", "aset.c", 1 },
		{ "src/backend/{access/nbtree,utils/hash}/**", "src/backend/utils/hash/dynahash.c", 1 },
		{ "src/backend/{access/nbtree,utils/hash}/**", "src/backend/access/nbtree/nbtsearch.c", 1 },
		{ "src/backend/{access/nbtree,utils/hash}/**", "src/backend/access/heap/heapam.c", 0 },
		/* the example in policy.h */
		{ "src/backend/utils/{mmgr/aset,hash/dynahash}.c", "src/backend/utils/mmgr/aset.c", 1 },
		{ "src/backend/utils/{mmgr/aset,hash/dynahash}.c", "src/backend/utils/hash/dynahash.c", 1 },
		{ "src/backend/utils/{mmgr/aset,hash/dynahash}.c", "src/backend/utils/mmgr/mcxt.c", 0 },
		{ "src/{a,b{1,2}}/x.c", "src/b2/x.c", 1 },
		{ "src/{a,b{1,2}}/x.c", "src/b/x.c", 0 },
		{ "a?c.c", "abc.c", 1 },
		{ "a?c.c", "a/c.c", 0 },
		{ "[abc].c", "b.c", 1 },
		{ "[!abc].c", "b.c", 0 },
		{ "[a-c].c", "c.c", 1 },
		{ "x\\*.c", "x*.c", 1 },
		{ "x\\*.c", "xy.c", 0 },
		{ "*.c", "a.c", 1 },
		{ "*.c", "src/a.c", 0 },
		/* many wildcards: each (glob, path) position pair is tried once, so
		 * these answer at once instead of backtracking exponentially */
		{ "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b",
		  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 0 },
		{ "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a",
		  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 1 },
		{ "**/**/**/**/**/**/**/**/**/**/**/**/**/**/**/**/x.c", "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/y.c", 0 },
		{ "**/**/**/**/**/**/**/**/**/**/**/**/**/**/**/**/y.c", "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/y.c", 1 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strvec pats = STRVEC_INIT;
		const char *why;
		int m = 0;
		assert_int_equal(glob_compile(cases[i].glob, &pats, &why), 0);
		for (size_t j = 0; j < pats.nr; j++)
			m |= glob_match(pats.v[j], cases[i].path);
		if (m != cases[i].match)
			fail_msg("glob %s vs %s: got %d", cases[i].glob, cases[i].path, m);
		strvec_clear(&pats);
	}
}

static char *joined(const struct strvec *sv)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < sv->nr; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", sv->v[i]);
	return strbuf_detach(&sb, NULL);
}

static void apply_is(const struct policy *p, const char *tu, const char *args,
		     const char *want_args, const char *want_rules)
{
	struct strvec sv = STRVEC_INIT;
	struct policy_result res;
	char *got, *rules;
	strvec_split(&sv, args);
	policy_apply(p, tu, &sv, &res);
	got = joined(&sv);
	rules = joined(&res.rules);
	if (strcmp(got, want_args))
		fail_msg("%s: args got <%s> want <%s>", tu ? tu : "(link)", got, want_args);
	if (strcmp(rules, want_rules))
		fail_msg("%s: rules got <%s> want <%s>", tu ? tu : "(link)", rules, want_rules);
	free(got);
	free(rules);
	policy_result_release(&res);
	strvec_clear(&sv);
}

static void test_apply(void **state)
{
	struct policy p;
	struct strbuf err = STRBUF_INIT;
	const char *text =
		"# comment\n"
		"[global]\n"
		"cflags += -march=native   # add\n"
		"cflags -= -g\n"
		"\n"
		"[src/backend/utils/mmgr/*.c]\n"
		"cflags += -O3 -finline-functions\n"
		"[src/backend/{access/nbtree,utils/hash}/**]\n"
		"cflags += -O3 '-fno-plt'\n"
		"[src/backend/utils/mmgr/aset.c]\n"
		"cflags -= -O3\n";
	(void)state;
	assert_int_equal(parse(text, &p, &err), 0);
	assert_int_equal(p.nr_sections, 4);
	apply_is(&p, "src/backend/utils/mmgr/mcxt.c", "-g -O2 -c mcxt.c -g",
		 "-O2 -c mcxt.c -march=native -O3 -finline-functions",
		 "/p/x.policy:2 /p/x.policy:6");
	apply_is(&p, "src/backend/utils/mmgr/aset.c", "-g -O2 -c aset.c",
		 "-O2 -c aset.c -march=native -finline-functions",
		 "/p/x.policy:2 /p/x.policy:6 /p/x.policy:10");
	apply_is(&p, "src/backend/utils/hash/dynahash.c", "-O2 -c d.c",
		 "-O2 -c d.c -march=native -O3 -fno-plt",
		 "/p/x.policy:2 /p/x.policy:8");
	apply_is(&p, "src/port/x.c", "-O2 -g -c x.c", "-O2 -c x.c -march=native",
		 "/p/x.policy:2");
	/* links: global removals apply; cflags additions only with LTO */
	apply_is(&p, NULL, "-g -o postgres a.o", "-o postgres a.o", "/p/x.policy:2");
	policy_release(&p);

	assert_int_equal(parse("[global]\nlto = on\ncflags += -O3\nldflags += -Wl,-O1\n", &p, &err), 0);
	apply_is(&p, NULL, "-O2 -o postgres a.o", "-O2 -o postgres a.o -O3 -Wl,-O1 -flto=auto",
		 "/p/x.policy:1");
	policy_release(&p);
	/* -no-pie: executables only; a shared library's link does not take it
	 * (the caller allows the policy to weaken pie) */
	{
		const char *t = "[global]\ncflags += -fno-pie\nldflags += -no-pie\n";
		assert_int_equal(policy_parse_flags(&p, "/p/x.policy", t, strlen(t),
						    POLICY_WEAKEN(1u << VOCAB_HARD_PIE), &err), 0);
	}
	apply_is(&p, NULL, "-o postgres a.o", "-o postgres a.o -no-pie", "/p/x.policy:1");
	apply_is(&p, NULL, "-shared -o x.so a.o", "-shared -o x.so a.o", "/p/x.policy:1");
	apply_is(&p, "a.c", "-c a.c", "-c a.c -fno-pie", "/p/x.policy:1");
	/* ... and a shared library's object keeps its PIC (a later -fno-pie
	 * would replace it: found linking PostgreSQL's conversion procs) */
	apply_is(&p, "a.c", "-fPIC -c a.c", "-fPIC -c a.c", "/p/x.policy:1");
	apply_is(&p, "a.c", "-fpic -c a.c", "-fpic -c a.c", "/p/x.policy:1");
	policy_release(&p);
	/* with LTO the cflags reach links, where the code is generated again:
	 * an executable's link takes -fno-pie, a shared library's does not
	 * (its LTO code would not be PIC: found linking PostgreSQL's
	 * conversion procs with lto = on) */
	{
		const char *t = "[global]\ncflags += -fno-pie\nldflags += -no-pie\nlto = slim\n";
		assert_int_equal(policy_parse_flags(&p, "/p/x.policy", t, strlen(t),
						    POLICY_WEAKEN(1u << VOCAB_HARD_PIE), &err), 0);
	}
	apply_is(&p, NULL, "-o postgres a.o", "-o postgres a.o -fno-pie -no-pie -flto=auto",
		 "/p/x.policy:1");
	apply_is(&p, NULL, "-fPIC -shared -o x.so a.o", "-fPIC -shared -o x.so a.o -flto=auto",
		 "/p/x.policy:1");
	apply_is(&p, NULL, "-shared -o x.so a.o", "-shared -o x.so a.o -flto=auto", "/p/x.policy:1");
	policy_release(&p);
	assert_int_equal(parse("[global]\nlto = on\ncflags += -O3\nldflags += -Wl,-O1\n", &p, &err), 0);
	/* lto = on: fat objects (pgoptcc drops the flag for a compiler that is not GCC) */
	apply_is(&p, "a.c", "-O2 -c a.c", "-O2 -c a.c -O3 -flto=auto -ffat-lto-objects",
		 "/p/x.policy:1");
	policy_release(&p);
	assert_int_equal(parse("[global]\nlto = slim\n", &p, &err), 0);
	apply_is(&p, "a.c", "-c a.c", "-c a.c -flto=auto", "/p/x.policy:1");
	apply_is(&p, NULL, "-o postgres a.o", "-o postgres a.o -flto=auto", "/p/x.policy:1");
	policy_release(&p);
	assert_int_equal(parse("[global]\nlto = fat\nhot = h.txt\nplugin = off\n", &p, &err), 0);
	assert_string_equal(p.hot, "/p/h.txt");
	assert_int_equal(p.plugin, 0);
	apply_is(&p, "a.c", "-c a.c", "-c a.c -flto=auto -ffat-lto-objects", "/p/x.policy:1");
	policy_release(&p);

	/* a hot list alone changes every compile (the plugin must run), not
	 * a link, and nothing when the policy switches the plugin off */
	{
		struct strvec sv = STRVEC_INIT;
		struct policy_result res;
		assert_int_equal(parse("[global]\nhot = h.txt\n[src/x.c]\ncflags += -O3\n", &p, &err), 0);
		strvec_split(&sv, "-O2 -c y.c");
		policy_apply(&p, "src/y.c", &sv, &res);
		assert_int_equal(res.lists, 1);
		assert_int_equal(res.changed, 1);
		assert_int_equal(res.added.nr, 0);
		policy_result_release(&res);
		policy_apply(&p, NULL, &sv, &res);
		assert_int_equal(res.lists, 0);
		assert_int_equal(res.changed, 0);
		policy_result_release(&res);
		policy_release(&p);
		assert_int_equal(parse("[global]\ncold = c.txt\nplugin = off\n", &p, &err), 0);
		policy_apply(&p, "src/y.c", &sv, &res);
		assert_int_equal(res.changed, 0);
		policy_result_release(&res);
		policy_release(&p);
		strvec_clear(&sv);
	}
	strbuf_release(&err);
}

/* bolt = ready: the compile and link flags BOLT needs; links change. */
static void test_bolt(void **state)
{
	struct policy p;
	struct strbuf err = STRBUF_INIT;
	(void)state;
	assert_int_equal(parse("[global]\nbolt = ready\n", &p, &err), 0);
	assert_int_equal(p.bolt, 1);
	apply_is(&p, "a.c", "-O2 -c a.c", "-O2 -c a.c -fno-reorder-blocks-and-partition", "/p/x.policy:1");
	apply_is(&p, NULL, "-O2 -o postgres a.o", "-O2 -o postgres a.o -Wl,--emit-relocs", "/p/x.policy:1");
	{
		struct strvec sv = STRVEC_INIT;
		struct policy_result res;
		strvec_split(&sv, "-o postgres a.o");
		policy_apply(&p, NULL, &sv, &res);
		assert_int_equal(res.changed, 1);
		policy_result_release(&res);
		strvec_clear(&sv);
	}
	policy_release(&p);
	/* with LTO the code is made at the link: it gets the compile flag too */
	assert_int_equal(parse("[global]\nlto = on\nbolt = ready\n", &p, &err), 0);
	apply_is(&p, NULL, "-o postgres a.o",
		 "-o postgres a.o -flto=auto -fno-reorder-blocks-and-partition -Wl,--emit-relocs",
		 "/p/x.policy:1");
	policy_release(&p);
	strbuf_release(&err);
}

/* hot/cold lists that cannot be read fail at load, naming file:line. */
static void test_lists(void **state)
{
	char dir[] = "/tmp/pgopt-unit-policy.XXXXXX";
	char path[128], hot[128];
	struct policy p;
	struct strbuf err = STRBUF_INIT;
	FILE *f;
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/x.policy", dir);
	snprintf(hot, sizeof(hot), "%s/hot.txt", dir);
	f = fopen(path, "w");
	fputs("[global]\n\nhot = hot.txt\ncold = cold.txt\n", f);
	fclose(f);
	assert_int_equal(policy_load(&p, path, 0, &err), -1);
	{
		char want[512];
		snprintf(want, sizeof(want), "%s:3: cannot read the hot list %s: No such file or directory",
			 path, hot);
		assert_string_equal(err.buf, want);
	}
	policy_release(&p);
	strbuf_reset(&err);
	f = fopen(hot, "w");
	fputs("aset.c:AllocSetAlloc\n", f);
	fclose(f);
	assert_int_equal(policy_load(&p, path, 0, &err), -1);
	assert_non_null(strstr(err.buf, ":4: cannot read the cold list "));
	policy_release(&p);
	strbuf_reset(&err);
	/* a directory is no list either */
	snprintf(path + strlen(dir), sizeof(path) - strlen(dir), "/cold.txt");
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/x.policy", dir);
	strbuf_reset(&err);
	assert_int_equal(policy_load(&p, path, 0, &err), -1);
	assert_non_null(strstr(err.buf, ":4: cannot read the cold list "));
	assert_non_null(strstr(err.buf, ": it is a directory, expected a regular file"));
	policy_release(&p);
	/* a FIFO (it would block every compile), a device (it never ends),
	 * a list over the limit: refused at load, naming the line */
	{
		static const struct { const char *text, *want; } cases[] = {
			{ "[global]\nhot = fifo\n", ":2: cannot read the hot list %s/fifo: it is a FIFO, expected a regular file" },
			{ "[global]\n\ncold = /dev/zero\n", ":3: cannot read the cold list /dev/zero: it is a character device, expected a regular file" },
			{ "[global]\nhot = big\n", ":2: cannot read the hot list %s/big: it is larger than 16 MiB" },
		};
		char fifo[160], big[160], want[256];
		int fd;
		snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
		snprintf(big, sizeof(big), "%s/big", dir);
		assert_int_equal(mkfifo(fifo, 0644), 0);
		fd = open(big, O_WRONLY | O_CREAT, 0644);
		assert_true(fd >= 0);
		assert_int_equal(ftruncate(fd, (off_t)SFS_READ_LIMIT + 1), 0);
		close(fd);
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			f = fopen(path, "w");
			fputs(cases[i].text, f);
			fclose(f);
			strbuf_reset(&err);
			assert_int_equal(policy_load(&p, path, 0, &err), -1);
			snprintf(want, sizeof(want), cases[i].want, dir);
			if (!strstr(err.buf, want))
				fail_msg("case %zu: got <%s>, want <...%s>", i, err.buf, want);
			policy_release(&p);
		}
		/* the policy itself: the same rules */
		strbuf_reset(&err);
		assert_int_equal(policy_load(&p, fifo, 0, &err), -1);
		snprintf(want, sizeof(want), "%s: cannot read policy: it is a FIFO, expected a regular file", fifo);
		assert_string_equal(err.buf, want);
		policy_release(&p);
		strbuf_reset(&err);
		assert_int_equal(policy_load(&p, "/dev/zero", 0, &err), -1);
		assert_string_equal(err.buf, "/dev/zero: cannot read policy: it is a character device, expected a regular file");
		policy_release(&p);
		strbuf_reset(&err);
		assert_int_equal(policy_load(&p, big, 0, &err), -1);
		snprintf(want, sizeof(want), "%s: cannot read policy: it is larger than 16 MiB, the limit for a policy, list or script", big);
		assert_string_equal(err.buf, want);
		policy_release(&p);
		unlink(fifo);
		unlink(big);
	}
	snprintf(path, sizeof(path), "%s/cold.txt", dir);
	rmdir(path);
	unlink(hot);
	snprintf(path, sizeof(path), "%s/x.policy", dir);
	unlink(path);
	rmdir(dir);
	strbuf_release(&err);
}

static void test_tu(void **state)
{
	char *s;
	(void)state;
	s = tu_normalize("a/./b/../c"); assert_string_equal(s, "a/c"); free(s);
	s = tu_normalize("/x//y/"); assert_string_equal(s, "/x/y"); free(s);
	s = tu_normalize("../../a"); assert_string_equal(s, "../../a"); free(s);
	s = tu_normalize("a/.."); assert_string_equal(s, "."); free(s);
	s = tu_normalize("/a/../.."); assert_string_equal(s, "/"); free(s);
	s = tu_name("../x/a.c", "/r/src/y", "/r"); assert_string_equal(s, "src/x/a.c"); free(s);
	s = tu_name("/r/src/a.c", "/elsewhere", "/r/"); assert_string_equal(s, "src/a.c"); free(s);
}

/* make each file (a path ending in '/' is a directory) below top */
static void make_tree(const char *top, const char *const *files)
{
	for (; *files; files++) {
		char path[4096], *p;
		snprintf(path, sizeof(path), "%s/%s", top, *files);
		for (p = path + strlen(top) + 1; (p = strchr(p, '/')); p++) {
			*p = '\0';
			mkdir(path, 0700);
			*p = '/';
		}
		if (path[strlen(path) - 1] != '/')
			close(open(path, O_WRONLY | O_CREAT, 0600));
	}
}

/*
 * tu_name in the three layouts of one project: the source tree P with
 * configure, a build tree beside it (V, VPATH) and one inside it (P/build,
 * Debian), each with config.status and a file configure links there.
 */
static void test_tu_layouts(void **state)
{
	static const char *const files[] = {
		"P/configure", "P/config.status", "P/src/port/a.c", "P/src/port/link.c",
		"P/build/config.status", "P/build/src/port/link.c",
		"V/config.status", "V/src/port/link.c",
		"G/src/Makefile.global", "G/src/gen.c", "none/x.c", NULL
	};
	static const struct { const char *source, *cwd, *want; } cases[] = {
		/* in-tree */
		{ "a.c", "P/src/port", "src/port/a.c" },
		{ "link.c", "P/src/port", "src/port/link.c" },
		/* build tree inside the source tree: its own files by its top */
		{ "link.c", "P/build/src/port", "src/port/link.c" },
		{ "../../../src/port/a.c", "P/build/src/port", "src/port/a.c" },
		{ "src/port/link.c", "P/build", "src/port/link.c" },
		/* beside it (VPATH) */
		{ "link.c", "V/src/port", "src/port/link.c" },
		{ "../../../P/src/port/a.c", "V/src/port", "src/port/a.c" },
		/* a PostgreSQL build tree before config.status exists */
		{ "gen.c", "G/src", "src/gen.c" },
		/* neither: as written */
		{ "x.c", "none", "x.c" },
	};
	char top[] = "/tmp/test-tu-XXXXXX";
	(void)state;
	assert_non_null(mkdtemp(top));
	make_tree(top, files);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char cwd[4096], *got;
		snprintf(cwd, sizeof(cwd), "%s/%s", top, cases[i].cwd);
		got = tu_name(cases[i].source, cwd, NULL);
		if (strcmp(got, cases[i].want))
			fail_msg("%s in %s: got %s, want %s", cases[i].source, cases[i].cwd, got,
				 cases[i].want);
		free(got);
	}
	{
		/* root overrides: Debian's build/ below a root at the source tree */
		char root[4096], cwd[4096], *got;
		snprintf(root, sizeof(root), "%s/P", top);
		snprintf(cwd, sizeof(cwd), "%s/P/build/src/port", top);
		got = tu_name("link.c", cwd, root);
		assert_string_equal(got, "build/src/port/link.c");
		free(got);
	}
	assert_int_equal(remove_tree(top), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_tu_layouts),
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_unmatched),
		cmocka_unit_test(test_bolt),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_vocab_table),
		cmocka_unit_test(test_vocab_flags),
		cmocka_unit_test(test_vocab_examples),
		cmocka_unit_test(test_bolt_vocab),
		cmocka_unit_test(test_hardening),
		cmocka_unit_test(test_weaken_list),
		cmocka_unit_test(test_unchecked),
		cmocka_unit_test(test_profile),
		cmocka_unit_test(test_globs),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_tu),
	};
	return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
