/*
 * test-policy.c - policy parsing (every error names file:line and what was
 * expected), the flag vocabulary (vocab.c: its table's order, what it
 * refuses and why, the vetted -Wl, options), the caller's switches
 * (POLICY_UNCHECKED, the profile mode), bounded reads of the lists, glob
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
	{ "[global]\ncflags -= -D_FORTIFY_SOURCE=2\n", "/p/x.policy:2: cannot remove -D_FORTIFY_SOURCE=2: it is not an optimization option (a macro definition changes the program, not how it is optimized)" },
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
		"[global]\ncflags += -fcall-graph -fpack -fshort\n",  /* not the ABI prefixes */
		"[global]\nbolt = ready\nlto = off\nplugin = on\n",
		"[global]\nbolt = off\n",
		/* the vocabulary: optimization and code generation, in both */
		"[global]\ncflags += -O3 -Os -Og -g -g3 -gdwarf-5 -ggdb -flto=auto -flto-partition=one -ffat-lto-objects -fuse-linker-plugin\n",
		"[global]\ncflags += --param=max-inline-insns-auto=30 -Wall -Wno-error=coverage-mismatch -Werror -w -pedantic\n",
		"[global]\ncflags += -fno-omit-frame-pointer -fstack-protector-strong -fcf-protection=full -fPIC -fno-semantic-interposition -fipa-pta -fopenmp-simd\n",
		"[global]\ncflags += -mtune=generic -march=x86-64-v3 -mno-avx512f -mprefer-vector-width=256 -fopt-info-inline-optimized -fno-lto\n",
		"[global]\ncflags -= -g -O2 -fstack-protector-strong -Werror\n",
		/* links: the compile options and the vetted linker options */
		"[global]\nldflags += -O2 -flto=auto -fuse-linker-plugin -fuse-ld=gold -fuse-ld=lld -Wl,-O1 -Wl,--gc-sections -Wl,--as-needed -Wl,--emit-relocs -Wl,-q\n",
		"[global]\nldflags += -Wl,-z,relro -Wl,-z,now -Wl,-z,noexecstack -Wl,-zrelro,-znow -Wl,-O1,--sort-common,--as-needed,-z,relro,-z,now\n",
		"[global]\nldflags += -Wl,--hash-style=gnu -Wl,--build-id -Wl,--build-id=sha1 -Wl,--icf=all -Wl,-z,max-page-size=0x200000 -Wl,-Bsymbolic-functions\n",
		"[global]\nldflags -= -Wl,-z,relro -Wl,--as-needed\n",
		/* PIE or not: a layout lever (-fno-pie compiles, -no-pie links) */
		"[global]\ncflags += -fno-pie\nldflags += -no-pie\n",
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
		  "/p/x.policy:1: section [/abs/x.c] is an absolute path, but translation units are named relative to the source root (e.g. src/backend/utils/mmgr/aset.c): the leading '/' is ignored" },
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

/* The vocabulary table: sorted, every refusal with a reason, no row that
 * is both a refusal and link-only. */
static void test_vocab_table(void **state)
{
	size_t n;
	const struct vocab_row *t = vocab_table(&n);
	struct strbuf why = STRBUF_INIT;
	(void)state;
	assert_true(n > 50);
	for (size_t i = 1; i < n; i++)
		if (strcmp(t[i - 1].name, t[i].name) >= 0)
			fail_msg("vocab table not sorted: \"%s\" before \"%s\"", t[i - 1].name, t[i].name);
	for (size_t i = 0; i < n; i++) {
		if (t[i].cls != VOCAB_OK && !t[i].why)
			fail_msg("row %s: a refusal without a reason", t[i].name);
		if (t[i].cls != VOCAB_OK && (t[i].flags & VOCAB_LINK_ONLY))
			fail_msg("row %s: link-only refusal", t[i].name);
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
	assert_int_equal(vocab_check("-pipe", 0, &why), VOCAB_OTHER);
	assert_int_equal(vocab_check("-Wl,--hash-style=/x", 1, &why), VOCAB_PATH);
	{
		/* -fno- of any length is normalised (no fixed buffer to slip past) */
		char longflag[600];
		snprintf(longflag, sizeof(longflag), "-fno-sanitize=%0500d", 0);
		assert_int_equal(vocab_check(longflag, 0, &why), VOCAB_CODE);
	}
	strbuf_release(&why);
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
	assert_int_equal(policy_parse_flags(&p, "/p/x.policy", text, strlen(text), POLICY_UNCHECKED, &err), 0);
	assert_int_equal(p.warnings.nr, 2);
	assert_string_equal(p.warnings.v[0],
			    "/p/x.policy:2: cflags += -DX=a b is outside the policy vocabulary (it is not an optimization option (a macro definition changes the program, not how it is optimized)): used because the caller set PGOPT_UNCHECKED_FLAGS=1");
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
	/* never the fast-math family, the ABI or the required flags */
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
	/* -no-pie: executables only; a shared library's link does not take it */
	assert_int_equal(parse("[global]\ncflags += -fno-pie\nldflags += -no-pie\n", &p, &err), 0);
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
	assert_int_equal(parse("[global]\ncflags += -fno-pie\nldflags += -no-pie\nlto = slim\n", &p, &err), 0);
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
		cmocka_unit_test(test_bolt),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_vocab_table),
		cmocka_unit_test(test_unchecked),
		cmocka_unit_test(test_profile),
		cmocka_unit_test(test_globs),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_tu),
	};
	return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
