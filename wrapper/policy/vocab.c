/*
 * vocab.c - the vocabulary of flags that come from data; see vocab.h.
 *
 * The compiler table was made from gcc 12's own lists (gcc --help=optimizers,
 * --help=common, --help=c and --help=target; every -f and -m row compiled
 * with gcc -Werror, its -fno-/-mno- form too), without the options that do
 * nothing any more, with the clang-15/19 spellings pgoptcc and the suites
 * use (-flto=thin, -fsplit-machine-functions, -gline-tables-only ...) and
 * the refusals that say why.  The parameters are gcc --help=params's
 * integer ones, without the sanitizers' and the analyzer's.  The llvm-bolt
 * table is llvm-bolt-15 --help-hidden's layout and optimization options
 * (and newer BOLT's words pgbuild's docs name: -reorder-functions=cdsort,
 * -split-strategy=).  Keep every table sorted by strcmp() of the name (the
 * unit test checks); adding an option is one row.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wrapper/common/suggest.h"
#include "wrapper/common/xalloc.h"
#include "wrapper/policy/vocab.h"

/* -march= and -mtune=: gcc 12's CPU names, and newer gcc's and clang's */
#define VOCAB_CPUS \
	"i386|i486|i586|pentium|lakemont|pentium-mmx|winchip-c6|winchip2|c3|samuel-2|c3-2|nehemiah|c7|" \
	"esther|i686|pentiumpro|pentium2|pentium3|pentium3m|pentium-m|pentium4|pentium4m|prescott|" \
	"nocona|core2|nehalem|corei7|westmere|sandybridge|corei7-avx|ivybridge|core-avx-i|haswell|" \
	"core-avx2|broadwell|skylake|skylake-avx512|cannonlake|icelake-client|rocketlake|" \
	"icelake-server|cascadelake|tigerlake|cooperlake|sapphirerapids|alderlake|bonnell|atom|" \
	"silvermont|slm|goldmont|goldmont-plus|tremont|knl|knm|intel|geode|k6|k6-2|k6-3|athlon|" \
	"athlon-tbird|athlon-4|athlon-xp|athlon-mp|x86-64|x86-64-v2|x86-64-v3|x86-64-v4|eden-x2|nano|" \
	"nano-1000|nano-2000|nano-3000|nano-x2|eden-x4|nano-x4|k8|k8-sse3|opteron|opteron-sse3|" \
	"athlon64|athlon64-sse3|athlon-fx|amdfam10|barcelona|bdver1|bdver2|bdver3|bdver4|znver1|" \
	"znver2|znver3|btver1|btver2|generic|native|znver4|znver5|raptorlake|meteorlake|emeraldrapids|" \
	"graniterapids|graniterapids-d|sierraforest|grandridge|arrowlake|arrowlake-s|lunarlake|" \
	"pantherlake|clearwaterforest|gracemont"

/* Rows by type (the rest are written out) */
#define V_EXACT(n)            { n, VOCAB_EXACT, NULL, 0, VOCAB_OK, NULL }
#define V_BOOL(n)             { n, VOCAB_BOOL, NULL, 0, VOCAB_OK, NULL }
#define V_INT(n, range)       { n, VOCAB_INT, range, 0, VOCAB_OK, NULL }
#define V_WORDS(n, words)     { n, VOCAB_WORDS, words, 0, VOCAB_OK, NULL }
#define V_ALIGN(n)            { n, VOCAB_ALIGN, NULL, 0, VOCAB_OK, NULL }
#define V_TEXT(n)             { n, VOCAB_TEXT, NULL, 0, VOCAB_OK, NULL }
#define V_WARNING(n)          { n, VOCAB_WARNING, NULL, 0, VOCAB_OK, NULL }
#define V_PARAM(n)            { n, VOCAB_PARAM, NULL, 0, VOCAB_OK, NULL }
#define V_DASHED(n, cls, why) { n, VOCAB_DASHED, NULL, 0, cls, why }
#define V_FAMILY(n, cls, why) { n, VOCAB_FAMILY, NULL, 0, cls, why }
#define V_REFUSED(n, cls, why) { n, VOCAB_REFUSED, NULL, 0, cls, why }

/* The compiler options (vocab.h) */
static const struct vocab_row rows[] = {
	V_FAMILY("--for-assembler", VOCAB_OUTPUT, "options for the assembler, unchecked"),
	V_FAMILY("--for-linker", VOCAB_OUTPUT, "options for the linker, unchecked"),
	V_FAMILY("--imacros", VOCAB_PATH, "a file to include"),
	V_FAMILY("--include", VOCAB_PATH, "a file to include or an include directory"),
	V_FAMILY("--language", VOCAB_OUTPUT, "the language the input is read as"),
	V_FAMILY("--library-directory", VOCAB_PATH, "a library directory"),
	V_FAMILY("--output", VOCAB_OUTPUT, "the output file"),
	V_REFUSED("--param", VOCAB_OTHER, "write --param=NAME=VALUE as one word"),
	V_PARAM("--param="),
	V_FAMILY("--prefix", VOCAB_CODE, "where the driver finds cc1, as and ld"),
	V_REFUSED("--preprocess", VOCAB_OUTPUT, "preprocessed source instead of an object"),
	V_FAMILY("--save-temps", VOCAB_OUTPUT, "intermediate files kept"),
	V_FAMILY("--specs", VOCAB_CODE, "a specs file can run any program"),
	V_FAMILY("--sysroot", VOCAB_PATH, "the system root"),
	V_FAMILY("-B", VOCAB_CODE, "where the driver finds cc1, as and ld"),
	V_FAMILY("-D", VOCAB_OTHER, "a macro definition changes the program, not how it is optimized"),
	V_EXACT("-D_FORTIFY_SOURCE"),
	V_INT("-D_FORTIFY_SOURCE=", "0,3"),
	V_REFUSED("-E", VOCAB_OUTPUT, "preprocessed source instead of an object"),
	V_FAMILY("-I", VOCAB_PATH, "an include directory"),
	V_FAMILY("-L", VOCAB_PATH, "a library directory"),
	V_FAMILY("-M", VOCAB_OUTPUT, "dependency information"),
	V_EXACT("-O"),
	V_EXACT("-O0"),
	V_EXACT("-O1"),
	V_EXACT("-O2"),
	V_EXACT("-O3"),
	V_EXACT("-Ofast"),
	V_EXACT("-Og"),
	V_EXACT("-Os"),
	V_EXACT("-Oz"),
	V_REFUSED("-S", VOCAB_OUTPUT, "assembler code instead of an object"),
	V_FAMILY("-T", VOCAB_PATH, "a linker script"),
	V_FAMILY("-U", VOCAB_OTHER, "a macro definition changes the program, not how it is optimized"),
	V_EXACT("-U_FORTIFY_SOURCE"),
	V_WARNING("-W"),
	V_FAMILY("-Wa,", VOCAB_OUTPUT, "options for the assembler, unchecked"),
	V_FAMILY("-Wp,", VOCAB_OUTPUT, "options for the preprocessor, unchecked"),
	V_FAMILY("-X", VOCAB_OUTPUT, "an option for another program, unchecked"),
	V_REFUSED("-c", VOCAB_OUTPUT, "a compile instead of a link"),
	V_FAMILY("-dump", VOCAB_OUTPUT, "what the driver does or where it writes"),
	V_BOOL("-fPIC"),
	V_BOOL("-fPIE"),
	V_BOOL("-faddrsig"),
	V_BOOL("-faggressive-loop-optimizations"),
	V_BOOL("-falign-functions"),
	V_ALIGN("-falign-functions="),
	V_BOOL("-falign-jumps"),
	V_ALIGN("-falign-jumps="),
	V_BOOL("-falign-labels"),
	V_ALIGN("-falign-labels="),
	V_BOOL("-falign-loops"),
	V_ALIGN("-falign-loops="),
	V_BOOL("-fallocation-dce"),
	V_BOOL("-fallow-store-data-races"),
	V_BOOL("-fassociative-math"),
	V_BOOL("-fasynchronous-unwind-tables"),
	V_BOOL("-fauto-inc-dec"),
	V_FAMILY("-fauto-profile", VOCAB_OUTPUT, "profile instrumentation or feedback: pgbuild pgo adds it through PGOPT_PROFILE"),
	V_WORDS("-fbasic-block-sections=", "all|labels|none"),
	V_BOOL("-fbit-tests"),
	V_BOOL("-fbranch-count-reg"),
	V_REFUSED("-fbranch-probabilities", VOCAB_OUTPUT, "profile instrumentation or feedback: pgbuild pgo adds it through PGOPT_PROFILE"),
	V_BOOL("-fbuiltin"),
	V_BOOL("-fcaller-saves"),
	V_FAMILY("-fcallgraph-info", VOCAB_OUTPUT, ".ci files"),
	V_EXACT("-fcf-protection"),
	V_WORDS("-fcf-protection=", "full|branch|return|none|check"),
	V_BOOL("-fcode-hoisting"),
	V_BOOL("-fcombine-stack-adjustments"),
	V_BOOL("-fcommon"),
	V_FAMILY("-fcompare-debug", VOCAB_OUTPUT, "a second compile and dump files"),
	V_BOOL("-fcompare-elim"),
	V_BOOL("-fconserve-stack"),
	V_FAMILY("-fcoverage", VOCAB_OUTPUT, "profile instrumentation or feedback: pgbuild pgo adds it through PGOPT_PROFILE"),
	V_BOOL("-fcprop-registers"),
	V_FAMILY("-fcrash-diagnostics", VOCAB_PATH, "where crash reports go"),
	V_BOOL("-fcrossjumping"),
	V_BOOL("-fcse-follow-jumps"),
	V_BOOL("-fcse-skip-blocks"),
	V_BOOL("-fcx-fortran-rules"),
	V_BOOL("-fcx-limited-range"),
	V_BOOL("-fdata-sections"),
	V_BOOL("-fdce"),
	V_FAMILY("-fdebug-prefix-map", VOCAB_PATH, "a rewrite of the paths recorded in the object"),
	V_BOOL("-fdebug-types-section"),
	V_BOOL("-fdefer-pop"),
	V_BOOL("-fdelete-dead-exceptions"),
	V_BOOL("-fdelete-null-pointer-checks"),
	V_FAMILY("-fdeps-", VOCAB_OUTPUT, "dependency files"),
	V_BOOL("-fdevirtualize"),
	V_BOOL("-fdevirtualize-at-ltrans"),
	V_BOOL("-fdevirtualize-speculatively"),
	V_FAMILY("-fdiagnostics-add-output", VOCAB_OUTPUT, "diagnostics written to a file"),
	V_FAMILY("-fdiagnostics-format", VOCAB_OUTPUT, "diagnostics written to a file"),
	V_FAMILY("-fdiagnostics-set-output", VOCAB_OUTPUT, "diagnostics written to a file"),
	V_REFUSED("-fdirectives-only", VOCAB_OUTPUT, "preprocessing of directives only"),
	V_BOOL("-fdse"),
	V_FAMILY("-fdump", VOCAB_OUTPUT, "dump files"),
	V_BOOL("-fdwarf2-cfi-asm"),
	V_BOOL("-fearly-inlining"),
	V_BOOL("-feliminate-unused-debug-symbols"),
	V_BOOL("-feliminate-unused-debug-types"),
	V_BOOL("-femit-class-debug-always"),
	V_BOOL("-fexceptions"),
	V_WORDS("-fexcess-precision=", "fast|standard|16"),
	V_FAMILY("-fexec-charset=", VOCAB_OTHER, "the program's string constants in another character set"),
	V_BOOL("-fexpensive-optimizations"),
	V_BOOL("-ffast-math"),
	V_BOOL("-ffat-lto-objects"),
	V_FAMILY("-ffile-prefix-map", VOCAB_PATH, "a rewrite of the paths recorded in the object"),
	V_BOOL("-ffinite-loops"),
	V_BOOL("-ffinite-math-only"),
	V_BOOL("-ffloat-store"),
	V_BOOL("-fforward-propagate"),
	V_WORDS("-ffp-contract=", "off|on|fast"),
	V_BOOL("-ffp-int-builtin-inexact"),
	V_BOOL("-ffunction-cse"),
	V_BOOL("-ffunction-sections"),
	V_BOOL("-fgcse"),
	V_BOOL("-fgcse-after-reload"),
	V_BOOL("-fgcse-las"),
	V_BOOL("-fgcse-lm"),
	V_BOOL("-fgcse-sm"),
	V_REFUSED("-fgnu-tm", VOCAB_CODE, "libitm"),
	V_BOOL("-fgnu-unique"),
	V_BOOL("-fgraphite"),
	V_BOOL("-fgraphite-identity"),
	V_BOOL("-fguess-branch-probability"),
	V_BOOL("-fharden-compares"),
	V_BOOL("-fharden-conditional-branches"),
	V_BOOL("-fhoist-adjacent-loads"),
	V_BOOL("-fident"),
	V_BOOL("-fif-conversion"),
	V_BOOL("-fif-conversion2"),
	V_BOOL("-findirect-inlining"),
	V_BOOL("-finline"),
	V_BOOL("-finline-atomics"),
	V_BOOL("-finline-functions"),
	V_BOOL("-finline-functions-called-once"),
	V_INT("-finline-limit=", NULL),
	V_BOOL("-finline-small-functions"),
	V_FAMILY("-finput-charset=", VOCAB_OTHER, "the source read in another character set"),
	V_FAMILY("-finstrument-functions", VOCAB_CODE, "calls to __cyg_profile_func_enter and _exit the program must supply"),
	V_FAMILY("-finstrument-functions-exclude-file-list=", VOCAB_PATH, "its value is a path"),
	V_BOOL("-fipa-bit-cp"),
	V_BOOL("-fipa-cp"),
	V_BOOL("-fipa-cp-clone"),
	V_BOOL("-fipa-icf"),
	V_BOOL("-fipa-icf-functions"),
	V_BOOL("-fipa-icf-variables"),
	V_BOOL("-fipa-modref"),
	V_BOOL("-fipa-profile"),
	V_BOOL("-fipa-pta"),
	V_BOOL("-fipa-pure-const"),
	V_BOOL("-fipa-ra"),
	V_BOOL("-fipa-reference"),
	V_BOOL("-fipa-reference-addressable"),
	V_BOOL("-fipa-sra"),
	V_BOOL("-fipa-stack-alignment"),
	V_BOOL("-fipa-strict-aliasing"),
	V_BOOL("-fipa-vrp"),
	V_WORDS("-fira-algorithm=", "CB|priority"),
	V_BOOL("-fira-hoist-pressure"),
	V_BOOL("-fira-loop-pressure"),
	V_WORDS("-fira-region=", "one|all|mixed"),
	V_BOOL("-fira-share-save-slots"),
	V_BOOL("-fira-share-spill-slots"),
	V_BOOL("-fisolate-erroneous-paths-attribute"),
	V_BOOL("-fisolate-erroneous-paths-dereference"),
	V_BOOL("-fivopts"),
	V_BOOL("-fjump-tables"),
	V_BOOL("-fkeep-inline-functions"),
	V_BOOL("-fkeep-static-consts"),
	V_BOOL("-fkeep-static-functions"),
	V_BOOL("-flifetime-dse"),
	V_INT("-flifetime-dse=", "0,2"),
	V_BOOL("-flimit-function-alignment"),
	V_FAMILY("-flinker-output", VOCAB_OUTPUT, "what the link produces"),
	V_BOOL("-flive-range-shrinkage"),
	V_BOOL("-floop-block"),
	V_BOOL("-floop-interchange"),
	V_BOOL("-floop-nest-optimize"),
	V_BOOL("-floop-parallelize-all"),
	V_BOOL("-floop-strip-mine"),
	V_BOOL("-floop-unroll-and-jam"),
	V_BOOL("-flra-remat"),
	V_BOOL("-flto"),
	V_INT("-flto-compression-level=", "0,19"),
	V_WORDS("-flto-partition=", "1to1|balanced|max|one|none"),
	V_WORDS("-flto=", "auto|jobserver|thin|full|<n>"),
	V_FAMILY("-fltrans", VOCAB_OUTPUT, "an internal option of the LTO driver"),
	V_FAMILY("-fmacro-prefix-map", VOCAB_PATH, "a rewrite of the paths recorded in the object"),
	V_BOOL("-fmath-errno"),
	V_BOOL("-fmerge-all-constants"),
	V_BOOL("-fmerge-constants"),
	V_BOOL("-fmerge-debug-strings"),
	V_FAMILY("-fmodule", VOCAB_CODE, "a module mapper, which can be any program"),
	V_BOOL("-fmodulo-sched"),
	V_BOOL("-fmodulo-sched-allow-regmoves"),
	V_BOOL("-fmove-loop-invariants"),
	V_BOOL("-fmove-loop-stores"),
	V_BOOL("-fnon-call-exceptions"),
	V_FAMILY("-foffload", VOCAB_CODE, "offload compilers"),
	V_BOOL("-fomit-frame-pointer"),
	V_FAMILY("-fopenacc", VOCAB_CODE, "libgomp"),
	V_FAMILY("-fopenmp", VOCAB_CODE, "libgomp"),
	V_BOOL("-fopenmp-simd"),
	V_DASHED("-fopt-info", VOCAB_OUTPUT, "-fopt-info with a file writes to it"),
	V_BOOL("-foptimize-sibling-calls"),
	V_BOOL("-foptimize-strlen"),
	V_BOOL("-fpartial-inlining"),
	V_FAMILY("-fpass-plugin", VOCAB_CODE, "a compiler plugin"),
	V_BOOL("-fpcc-struct-return"),
	V_BOOL("-fpeel-loops"),
	V_BOOL("-fpeephole"),
	V_BOOL("-fpeephole2"),
	V_BOOL("-fpic"),
	V_BOOL("-fpie"),
	V_BOOL("-fplt"),
	V_FAMILY("-fplugin", VOCAB_CODE, "a GCC plugin"),
	V_BOOL("-fpredictive-commoning"),
	V_BOOL("-fprefetch-loop-arrays"),
	V_FAMILY("-fpreprocessed", VOCAB_OUTPUT, "the input read as preprocessed"),
	V_BOOL("-fprintf-return-value"),
	V_FAMILY("-fprofile", VOCAB_OUTPUT, "profile instrumentation or feedback: pgbuild pgo adds it through PGOPT_PROFILE"),
	V_EXACT("-frandom-seed"),
	V_TEXT("-frandom-seed="),
	V_BOOL("-freciprocal-math"),
	V_BOOL("-frecord-command-line"),
	V_BOOL("-frecord-gcc-switches"),
	V_BOOL("-free"),
	V_BOOL("-freg-struct-return"),
	V_BOOL("-frename-registers"),
	V_BOOL("-freorder-blocks"),
	V_WORDS("-freorder-blocks-algorithm=", "simple|stc"),
	V_BOOL("-freorder-blocks-and-partition"),
	V_BOOL("-freorder-functions"),
	V_BOOL("-frerun-cse-after-loop"),
	V_BOOL("-freschedule-modulo-scheduled-loops"),
	V_FAMILY("-fresolution", VOCAB_OUTPUT, "an internal option of the LTO driver"),
	V_BOOL("-frounding-math"),
	V_FAMILY("-fsanitize", VOCAB_CODE, "a sanitizer runtime"),
	V_FAMILY("-fsave-optimization-record", VOCAB_OUTPUT, ".opt-record files"),
	V_BOOL("-fsched-critical-path-heuristic"),
	V_BOOL("-fsched-dep-count-heuristic"),
	V_BOOL("-fsched-group-heuristic"),
	V_BOOL("-fsched-interblock"),
	V_BOOL("-fsched-last-insn-heuristic"),
	V_BOOL("-fsched-pressure"),
	V_BOOL("-fsched-rank-heuristic"),
	V_BOOL("-fsched-spec"),
	V_BOOL("-fsched-spec-insn-heuristic"),
	V_BOOL("-fsched-spec-load"),
	V_BOOL("-fsched-spec-load-dangerous"),
	V_BOOL("-fsched-stalled-insns"),
	V_BOOL("-fsched-stalled-insns-dep"),
	V_INT("-fsched-stalled-insns-dep=", NULL),
	V_INT("-fsched-stalled-insns=", NULL),
	V_BOOL("-fsched2-use-superblocks"),
	V_BOOL("-fsched2-use-traces"),
	V_BOOL("-fschedule-fusion"),
	V_BOOL("-fschedule-insns"),
	V_BOOL("-fschedule-insns2"),
	V_BOOL("-fsel-sched-pipelining"),
	V_BOOL("-fsel-sched-pipelining-outer-loops"),
	V_BOOL("-fsel-sched-reschedule-pipelined"),
	V_BOOL("-fselective-scheduling"),
	V_BOOL("-fselective-scheduling2"),
	V_FAMILY("-fself-test", VOCAB_PATH, "a directory of test data"),
	V_BOOL("-fsemantic-interposition"),
	V_BOOL("-fshrink-wrap"),
	V_BOOL("-fshrink-wrap-separate"),
	V_BOOL("-fsignaling-nans"),
	V_BOOL("-fsigned-zeros"),
	V_WORDS("-fsimd-cost-model=", "unlimited|dynamic|cheap|very-cheap"),
	V_BOOL("-fsingle-precision-constant"),
	V_BOOL("-fslp-vectorize"),
	V_BOOL("-fsplit-ivs-in-unroller"),
	V_BOOL("-fsplit-loops"),
	V_BOOL("-fsplit-lto-unit"),
	V_BOOL("-fsplit-machine-functions"),
	V_BOOL("-fsplit-paths"),
	V_FAMILY("-fsplit-stack", VOCAB_CODE, "the split-stack runtime"),
	V_BOOL("-fsplit-wide-types"),
	V_BOOL("-fsplit-wide-types-early"),
	V_BOOL("-fssa-backprop"),
	V_BOOL("-fssa-phiopt"),
	V_BOOL("-fstack-clash-protection"),
	V_BOOL("-fstack-protector"),
	V_EXACT("-fstack-protector-all"),
	V_EXACT("-fstack-protector-explicit"),
	V_EXACT("-fstack-protector-strong"),
	V_WORDS("-fstack-reuse=", "all|named_vars|none"),
	V_FAMILY("-fstack-usage", VOCAB_OUTPUT, ".su files"),
	V_BOOL("-fstdarg-opt"),
	V_BOOL("-fstore-merging"),
	V_BOOL("-fstrict-aliasing"),
	V_BOOL("-fstrict-overflow"),
	V_BOOL("-fstrict-volatile-bitfields"),
	V_BOOL("-fsync-libcalls"),
	V_FAMILY("-fsyntax-only", VOCAB_OUTPUT, "no object at all"),
	V_FAMILY("-ftest-coverage", VOCAB_OUTPUT, "profile instrumentation or feedback: pgbuild pgo adds it through PGOPT_PROFILE"),
	V_BOOL("-fthread-jumps"),
	V_WORDS("-ftls-model=", "global-dynamic|local-dynamic|initial-exec|local-exec"),
	V_BOOL("-ftoplevel-reorder"),
	V_BOOL("-ftracer"),
	V_BOOL("-ftrampolines"),
	V_BOOL("-ftrapping-math"),
	V_BOOL("-ftrapv"),
	V_BOOL("-ftree-bit-ccp"),
	V_BOOL("-ftree-builtin-call-dce"),
	V_BOOL("-ftree-ccp"),
	V_BOOL("-ftree-ch"),
	V_BOOL("-ftree-coalesce-vars"),
	V_BOOL("-ftree-copy-prop"),
	V_BOOL("-ftree-cselim"),
	V_BOOL("-ftree-dce"),
	V_BOOL("-ftree-dominator-opts"),
	V_BOOL("-ftree-dse"),
	V_BOOL("-ftree-forwprop"),
	V_BOOL("-ftree-fre"),
	V_BOOL("-ftree-loop-distribute-patterns"),
	V_BOOL("-ftree-loop-distribution"),
	V_BOOL("-ftree-loop-if-convert"),
	V_BOOL("-ftree-loop-im"),
	V_BOOL("-ftree-loop-ivcanon"),
	V_BOOL("-ftree-loop-linear"),
	V_BOOL("-ftree-loop-optimize"),
	V_BOOL("-ftree-loop-vectorize"),
	V_BOOL("-ftree-lrs"),
	V_FAMILY("-ftree-parallelize-loops", VOCAB_CODE, "libgomp"),
	V_BOOL("-ftree-partial-pre"),
	V_BOOL("-ftree-phiprop"),
	V_BOOL("-ftree-pre"),
	V_BOOL("-ftree-pta"),
	V_BOOL("-ftree-reassoc"),
	V_BOOL("-ftree-scev-cprop"),
	V_BOOL("-ftree-sink"),
	V_BOOL("-ftree-slp-vectorize"),
	V_BOOL("-ftree-slsr"),
	V_BOOL("-ftree-sra"),
	V_BOOL("-ftree-switch-conversion"),
	V_BOOL("-ftree-tail-merge"),
	V_BOOL("-ftree-ter"),
	V_BOOL("-ftree-vectorize"),
	V_BOOL("-ftree-vrp"),
	V_WORDS("-ftrivial-auto-var-init=", "uninitialized|pattern|zero"),
	V_BOOL("-funconstrained-commons"),
	V_BOOL("-funique-internal-linkage-names"),
	V_BOOL("-funit-at-a-time"),
	V_BOOL("-funroll-all-loops"),
	V_BOOL("-funroll-loops"),
	V_BOOL("-funsafe-math-optimizations"),
	V_BOOL("-funswitch-loops"),
	V_BOOL("-funwind-tables"),
	{ "-fuse-ld=", VOCAB_WORDS, "bfd|gold|lld|mold", VOCAB_LINK_ONLY, VOCAB_CODE, "another linker program; ldflags may name -fuse-ld=bfd, gold, lld or mold" },
	V_BOOL("-fuse-linker-plugin"),
	V_BOOL("-fvar-tracking"),
	V_BOOL("-fvar-tracking-assignments"),
	V_BOOL("-fvar-tracking-assignments-toggle"),
	V_BOOL("-fvar-tracking-uninit"),
	V_BOOL("-fvariable-expansion-in-unroller"),
	V_BOOL("-fvect-cost-model"),
	V_WORDS("-fvect-cost-model=", "unlimited|dynamic|cheap|very-cheap"),
	V_BOOL("-fvectorize"),
	V_BOOL("-fvpt"),
	V_FAMILY("-fvtable-verify", VOCAB_CODE, "libvtv"),
	V_BOOL("-fweb"),
	V_BOOL("-fwhole-program"),
	V_FAMILY("-fwide-exec-charset=", VOCAB_OTHER, "the program's wide string constants in another character set"),
	V_FAMILY("-fwpa", VOCAB_OUTPUT, "an internal option of the LTO driver"),
	V_BOOL("-fwrapv"),
	V_BOOL("-fwrapv-pointer"),
	V_FAMILY("-fxray", VOCAB_CODE, "the XRay runtime"),
	V_WORDS("-fzero-call-used-regs=", "skip|used-gpr-arg|used-arg|all-gpr-arg|all-arg|used-gpr|all-gpr|used|all"),
	V_BOOL("-fzero-initialized-in-bss"),
	V_EXACT("-g"),
	V_EXACT("-g0"),
	V_EXACT("-g1"),
	V_EXACT("-g2"),
	V_EXACT("-g3"),
	V_BOOL("-gas-loc-support"),
	V_BOOL("-gas-locview-support"),
	V_EXACT("-gbtf"),
	V_BOOL("-gcolumn-info"),
	V_EXACT("-gctf"),
	V_BOOL("-gdescribe-dies"),
	V_EXACT("-gdwarf"),
	V_INT("-gdwarf-", "2,5"),
	V_EXACT("-gdwarf32"),
	V_EXACT("-gdwarf64"),
	V_EXACT("-ggdb"),
	V_EXACT("-ggdb0"),
	V_EXACT("-ggdb1"),
	V_EXACT("-ggdb2"),
	V_EXACT("-ggdb3"),
	V_BOOL("-ggnu-pubnames"),
	V_BOOL("-ginline-points"),
	V_BOOL("-ginternal-reset-location-views"),
	V_EXACT("-gline-directives-only"),
	V_EXACT("-gline-tables-only"),
	V_BOOL("-gpubnames"),
	V_BOOL("-grecord-gcc-switches"),
	V_FAMILY("-gsplit-dwarf", VOCAB_OUTPUT, ".dwo files beside the object"),
	V_BOOL("-gstatement-frontiers"),
	V_BOOL("-gstrict-dwarf"),
	V_BOOL("-gvariable-location-views"),
	V_EXACT("-gz"),
	V_WORDS("-gz=", "none|zlib|zlib-gnu|zstd"),
	V_FAMILY("-i", VOCAB_PATH, "a file to include or an include directory"),
	V_FAMILY("-iplugindir", VOCAB_CODE, "where GCC finds plugins"),
	V_FAMILY("-l", VOCAB_CODE, "a library"),
	V_BOOL("-m3dnow"),
	V_BOOL("-m3dnowa"),
	V_EXACT("-m64"),
	V_BOOL("-m8bit-idiv"),
	V_BOOL("-mabm"),
	V_BOOL("-maccumulate-outgoing-args"),
	V_BOOL("-madx"),
	V_BOOL("-maes"),
	V_WORDS("-malign-data=", "abi|cacheline|compat"),
	V_BOOL("-malign-stringops"),
	V_BOOL("-mamx-bf16"),
	V_BOOL("-mamx-int8"),
	V_BOOL("-mamx-tile"),
	{ "-march=", VOCAB_WORDS, VOCAB_CPUS, 0, VOCAB_OK, "expected a CPU name gcc or clang knows (gcc --help=target lists them) or native" },
	V_BOOL("-mavx"),
	V_BOOL("-mavx2"),
	V_BOOL("-mavx256-split-unaligned-load"),
	V_BOOL("-mavx256-split-unaligned-store"),
	V_BOOL("-mavx5124fmaps"),
	V_BOOL("-mavx5124vnniw"),
	V_BOOL("-mavx512bf16"),
	V_BOOL("-mavx512bitalg"),
	V_BOOL("-mavx512bw"),
	V_BOOL("-mavx512cd"),
	V_BOOL("-mavx512dq"),
	V_BOOL("-mavx512er"),
	V_BOOL("-mavx512f"),
	V_BOOL("-mavx512fp16"),
	V_BOOL("-mavx512ifma"),
	V_BOOL("-mavx512pf"),
	V_BOOL("-mavx512vbmi"),
	V_BOOL("-mavx512vbmi2"),
	V_BOOL("-mavx512vl"),
	V_BOOL("-mavx512vnni"),
	V_BOOL("-mavx512vp2intersect"),
	V_BOOL("-mavx512vpopcntdq"),
	V_BOOL("-mavxvnni"),
	V_BOOL("-mbmi"),
	V_BOOL("-mbmi2"),
	V_INT("-mbranch-cost=", "0,5"),
	V_BOOL("-mcall-ms2sysv-xlogues"),
	V_BOOL("-mcet-switch"),
	V_BOOL("-mcld"),
	V_BOOL("-mcldemote"),
	V_BOOL("-mclflushopt"),
	V_BOOL("-mclwb"),
	V_BOOL("-mclzero"),
	V_WORDS("-mcmodel=", "small|medium|large|kernel"),
	V_BOOL("-mcrc32"),
	V_BOOL("-mcx16"),
	V_BOOL("-mdirect-extern-access"),
	V_EXACT("-mdispatch-scheduler"),
	V_BOOL("-menqcmd"),
	V_BOOL("-mf16c"),
	V_BOOL("-mfancy-math-387"),
	V_BOOL("-mfma"),
	V_BOOL("-mfma4"),
	V_BOOL("-mforce-drap"),
	V_BOOL("-mforce-indirect-call"),
	V_WORDS("-mfpmath=", "sse"),
	V_BOOL("-mfsgsbase"),
	V_WORDS("-mfunction-return=", "keep|thunk|thunk-inline|thunk-extern"),
	V_BOOL("-mfxsr"),
	V_BOOL("-mgfni"),
	V_WORDS("-mharden-sls=", "none|all|return|indirect-jmp"),
	V_BOOL("-mhle"),
	V_BOOL("-mhreset"),
	V_BOOL("-mieee-fp"),
	V_BOOL("-mindirect-branch-cs-prefix"),
	V_BOOL("-mindirect-branch-register"),
	V_WORDS("-mindirect-branch=", "keep|thunk|thunk-inline|thunk-extern"),
	V_BOOL("-minline-all-stringops"),
	V_BOOL("-minline-stringops-dynamically"),
	V_BOOL("-mkl"),
	V_INT("-mlarge-data-threshold=", NULL),
	V_FAMILY("-mllvm", VOCAB_OUTPUT, "options for LLVM, unchecked"),
	V_BOOL("-mlwp"),
	V_BOOL("-mlzcnt"),
	V_BOOL("-mmanual-endbr"),
	V_BOOL("-mmmx"),
	V_BOOL("-mmovbe"),
	V_BOOL("-mmovdir64b"),
	V_BOOL("-mmovdiri"),
	V_WORDS("-mmove-max=", "default|128|256|512"),
	V_BOOL("-mmwait"),
	V_BOOL("-mmwaitx"),
	V_BOOL("-mneeded"),
	V_BOOL("-momit-leaf-frame-pointer"),
	V_BOOL("-mpclmul"),
	V_BOOL("-mpconfig"),
	V_BOOL("-mpku"),
	V_BOOL("-mpopcnt"),
	V_BOOL("-mprefer-avx128"),
	V_WORDS("-mprefer-vector-width=", "none|128|256|512"),
	V_BOOL("-mprefetchwt1"),
	V_BOOL("-mprfchw"),
	V_BOOL("-mptwrite"),
	V_BOOL("-mpush-args"),
	V_BOOL("-mrdpid"),
	V_BOOL("-mrdrnd"),
	V_BOOL("-mrdseed"),
	V_BOOL("-mred-zone"),
	V_BOOL("-mrelax-cmpxchg-loop"),
	V_BOOL("-mrtm"),
	V_BOOL("-msahf"),
	V_BOOL("-mserialize"),
	V_BOOL("-msgx"),
	V_BOOL("-msha"),
	V_BOOL("-mshstk"),
	V_BOOL("-mskip-rax-setup"),
	V_BOOL("-msse2avx"),
	V_BOOL("-msse3"),
	V_BOOL("-msse4"),
	V_BOOL("-msse4.1"),
	V_BOOL("-msse4.2"),
	V_BOOL("-msse4a"),
	V_BOOL("-mssse3"),
	V_BOOL("-mstack-arg-probe"),
	V_BOOL("-mstackrealign"),
	V_WORDS("-mstore-max=", "default|128|256|512"),
	V_WORDS("-mstringop-strategy=", "byte_loop|libcall|loop|rep_4byte|rep_8byte|rep_byte|unrolled_loop|vector_loop"),
	V_BOOL("-mstv"),
	V_BOOL("-mtbm"),
	V_WORDS("-mtls-dialect=", "gnu|gnu2"),
	V_BOOL("-mtls-direct-seg-refs"),
	V_BOOL("-mtsxldtrk"),
	{ "-mtune=", VOCAB_WORDS, VOCAB_CPUS, 0, VOCAB_OK, "expected a CPU name gcc or clang knows (gcc --help=target lists them) or native" },
	V_BOOL("-muintr"),
	V_BOOL("-mvaes"),
	V_BOOL("-mvpclmulqdq"),
	V_BOOL("-mvzeroupper"),
	V_BOOL("-mwaitpkg"),
	V_BOOL("-mwbnoinvd"),
	V_BOOL("-mwidekl"),
	V_BOOL("-mxop"),
	V_BOOL("-mxsave"),
	V_BOOL("-mxsavec"),
	V_BOOL("-mxsaveopt"),
	V_BOOL("-mxsaves"),
	{ "-no-pie", VOCAB_EXACT, NULL, VOCAB_LINK_ONLY, VOCAB_OK, NULL },
	V_FAMILY("-o", VOCAB_OUTPUT, "the output file"),
	V_REFUSED("-p", VOCAB_OUTPUT, "gprof instrumentation"),
	V_EXACT("-pedantic"),
	V_EXACT("-pedantic-errors"),
	V_REFUSED("-pg", VOCAB_OUTPUT, "gprof instrumentation"),
	{ "-pie", VOCAB_EXACT, NULL, VOCAB_LINK_ONLY, VOCAB_OK, NULL },
	V_FAMILY("-save-temps", VOCAB_OUTPUT, "intermediate files kept"),
	V_FAMILY("-shared", VOCAB_OTHER, NULL),
	V_FAMILY("-specs", VOCAB_CODE, "a specs file can run any program"),
	V_FAMILY("-static", VOCAB_OTHER, NULL),
	V_FAMILY("-std=", VOCAB_OTHER, NULL),
	V_EXACT("-w"),
	V_FAMILY("-wrapper", VOCAB_CODE, "another program run around the compiler"),
	V_FAMILY("-x", VOCAB_OUTPUT, "the language the input is read as"),
};

/* --param=NAME=N: GCC 12's integer parameters and their ranges (-1: none) */
static const struct vocab_param params[] = {
	{ "align-loop-iterations", 0, -1 },
	{ "align-threshold", 1, 65536 },
	{ "avg-loop-niter", 1, 65536 },
	{ "avoid-fma-max-bits", 0, 512 },
	{ "builtin-expect-probability", 0, 100 },
	{ "builtin-string-cmp-inline-length", 0, 100 },
	{ "case-values-threshold", 0, -1 },
	{ "comdat-sharing-probability", 0, -1 },
	{ "constructive-interference-size", 0, -1 },
	{ "destructive-interference-size", 0, -1 },
	{ "dse-max-alias-queries-per-store", 0, -1 },
	{ "dse-max-object-size", 0, -1 },
	{ "early-inlining-insns", 0, -1 },
	{ "evrp-sparse-threshold", 0, -1 },
	{ "evrp-switch-limit", 0, -1 },
	{ "fsm-scale-path-blocks", 1, 10 },
	{ "fsm-scale-path-stmts", 1, 10 },
	{ "gcse-after-reload-critical-fraction", 0, -1 },
	{ "gcse-after-reload-partial-fraction", 0, -1 },
	{ "gcse-cost-distance-ratio", 0, -1 },
	{ "gcse-unrestricted-cost", 0, -1 },
	{ "graphite-allow-codegen-errors", 0, 1 },
	{ "graphite-max-arrays-per-scop", 0, -1 },
	{ "graphite-max-nb-scop-params", 0, -1 },
	{ "hot-bb-count-fraction", 0, -1 },
	{ "hot-bb-count-ws-permille", 0, 1000 },
	{ "hot-bb-frequency-fraction", 0, -1 },
	{ "inline-heuristics-hint-percent", 100, 1000000 },
	{ "inline-min-speedup", 0, 100 },
	{ "inline-unit-growth", 0, -1 },
	{ "integer-share-limit", 2, 65536 },
	{ "ipa-cp-eval-threshold", 0, -1 },
	{ "ipa-cp-large-unit-insns", 0, -1 },
	{ "ipa-cp-loop-hint-bonus", 0, -1 },
	{ "ipa-cp-max-recursive-depth", 0, -1 },
	{ "ipa-cp-min-recursive-probability", 0, -1 },
	{ "ipa-cp-profile-count-base", 0, 100 },
	{ "ipa-cp-recursion-penalty", 0, 100 },
	{ "ipa-cp-recursive-freq-factor", 0, -1 },
	{ "ipa-cp-single-call-penalty", 0, 100 },
	{ "ipa-cp-unit-growth", 0, -1 },
	{ "ipa-cp-value-list-size", 0, -1 },
	{ "ipa-jump-function-lookups", 0, -1 },
	{ "ipa-max-aa-steps", 0, -1 },
	{ "ipa-max-agg-items", 0, -1 },
	{ "ipa-max-loop-predicates", 0, -1 },
	{ "ipa-max-param-expr-ops", 0, -1 },
	{ "ipa-max-switch-predicate-bounds", 0, -1 },
	{ "ipa-sra-max-replacements", 0, 16 },
	{ "ipa-sra-ptr-growth-factor", 0, -1 },
	{ "ira-consider-dup-in-all-alts", 0, 1 },
	{ "ira-loop-reserved-regs", 0, -1 },
	{ "ira-max-conflict-table-size", 0, -1 },
	{ "ira-max-loops-num", 0, -1 },
	{ "iv-always-prune-cand-set-bound", 0, -1 },
	{ "iv-consider-all-candidates-bound", 0, -1 },
	{ "iv-max-considered-uses", 0, -1 },
	{ "jump-table-max-growth-ratio-for-size", 0, -1 },
	{ "jump-table-max-growth-ratio-for-speed", 0, -1 },
	{ "l1-cache-line-size", 0, -1 },
	{ "l1-cache-size", 0, -1 },
	{ "l2-cache-size", 0, -1 },
	{ "large-function-growth", 0, -1 },
	{ "large-function-insns", 0, -1 },
	{ "large-stack-frame", 0, -1 },
	{ "large-stack-frame-growth", 0, -1 },
	{ "large-unit-insns", 0, -1 },
	{ "lim-expensive", 0, -1 },
	{ "logical-op-non-short-circuit", 0, 1 },
	{ "loop-block-tile-size", 0, -1 },
	{ "loop-interchange-max-num-stmts", 0, -1 },
	{ "loop-interchange-stride-ratio", 0, -1 },
	{ "loop-invariant-max-bbs-in-loop", 0, -1 },
	{ "loop-max-datarefs-for-datadeps", 0, -1 },
	{ "loop-versioning-max-inner-insns", 0, -1 },
	{ "loop-versioning-max-outer-insns", 0, -1 },
	{ "lra-inheritance-ebb-probability-cutoff", 0, 100 },
	{ "lra-max-considered-reload-pseudos", 0, -1 },
	{ "lto-max-partition", 0, -1 },
	{ "lto-max-streaming-parallelism", 1, 65536 },
	{ "lto-min-partition", 0, -1 },
	{ "lto-partitions", 1, 65536 },
	{ "max-average-unrolled-insns", 0, -1 },
	{ "max-combine-insns", 2, 4 },
	{ "max-completely-peel-loop-nest-depth", 0, -1 },
	{ "max-completely-peel-times", 0, -1 },
	{ "max-completely-peeled-insns", 0, -1 },
	{ "max-crossjump-edges", 0, -1 },
	{ "max-cse-insns", 0, -1 },
	{ "max-cse-path-length", 1, 65536 },
	{ "max-cselib-memory-locations", 0, -1 },
	{ "max-debug-marker-count", 0, -1 },
	{ "max-delay-slot-insn-search", 0, -1 },
	{ "max-delay-slot-live-search", 0, -1 },
	{ "max-dse-active-local-stores", 0, -1 },
	{ "max-early-inliner-iterations", 0, -1 },
	{ "max-fields-for-field-sensitive", 0, -1 },
	{ "max-find-base-term-values", 0, -1 },
	{ "max-fsm-thread-length", 1, 999999 },
	{ "max-fsm-thread-path-insns", 1, 999999 },
	{ "max-gcse-insertion-ratio", 0, -1 },
	{ "max-gcse-memory", 0, -1 },
	{ "max-goto-duplication-insns", 0, -1 },
	{ "max-grow-copy-bb-insns", 0, -1 },
	{ "max-hoist-depth", 0, -1 },
	{ "max-inline-functions-called-once-insns", 0, -1 },
	{ "max-inline-functions-called-once-loop-depth", 0, -1 },
	{ "max-inline-insns-auto", 0, -1 },
	{ "max-inline-insns-recursive", 0, -1 },
	{ "max-inline-insns-recursive-auto", 0, -1 },
	{ "max-inline-insns-single", 0, -1 },
	{ "max-inline-insns-size", 0, -1 },
	{ "max-inline-insns-small", 0, -1 },
	{ "max-inline-recursive-depth", 0, -1 },
	{ "max-inline-recursive-depth-auto", 0, -1 },
	{ "max-isl-operations", 0, -1 },
	{ "max-iterations-computation-cost", 0, -1 },
	{ "max-iterations-to-track", 0, -1 },
	{ "max-jump-thread-duplication-stmts", 0, -1 },
	{ "max-last-value-rtl", 0, -1 },
	{ "max-loop-header-insns", 0, -1 },
	{ "max-modulo-backtrack-attempts", 0, -1 },
	{ "max-partial-antic-length", 0, -1 },
	{ "max-peel-branches", 0, -1 },
	{ "max-peel-times", 0, -1 },
	{ "max-peeled-insns", 0, -1 },
	{ "max-pending-list-length", 0, -1 },
	{ "max-pipeline-region-blocks", 0, -1 },
	{ "max-pipeline-region-insns", 0, -1 },
	{ "max-pow-sqrt-depth", 1, 32 },
	{ "max-predicted-iterations", 0, 65536 },
	{ "max-reload-search-insns", 0, -1 },
	{ "max-rtl-if-conversion-insns", 0, 99 },
	{ "max-rtl-if-conversion-predictable-cost", 0, 200 },
	{ "max-rtl-if-conversion-unpredictable-cost", 0, 200 },
	{ "max-sched-extend-regions-iters", 0, -1 },
	{ "max-sched-insn-conflict-delay", 1, 10 },
	{ "max-sched-ready-insns", 1, 65536 },
	{ "max-sched-region-blocks", 0, -1 },
	{ "max-sched-region-insns", 0, -1 },
	{ "max-slsr-cand-scan", 1, 999999 },
	{ "max-speculative-devirt-maydefs", 0, -1 },
	{ "max-ssa-name-query-depth", 1, 10 },
	{ "max-store-chains-to-track", 1, 65536 },
	{ "max-stores-to-merge", 2, 65536 },
	{ "max-stores-to-sink", 0, -1 },
	{ "max-stores-to-track", 2, 1048576 },
	{ "max-tail-merge-comparisons", 0, -1 },
	{ "max-tail-merge-iterations", 0, -1 },
	{ "max-tracked-strlens", 0, -1 },
	{ "max-tree-if-conversion-phi-args", 2, 65536 },
	{ "max-unroll-times", 0, -1 },
	{ "max-unrolled-insns", 0, -1 },
	{ "max-unswitch-insns", 0, -1 },
	{ "max-unswitch-level", 0, -1 },
	{ "max-variable-expansions-in-unroller", 0, -1 },
	{ "max-vartrack-expr-depth", 0, -1 },
	{ "max-vartrack-reverse-op-size", 0, -1 },
	{ "max-vartrack-size", 0, -1 },
	{ "max-vrp-switch-assertions", 0, -1 },
	{ "min-crossjump-insns", 1, 65536 },
	{ "min-inline-recursive-probability", 0, -1 },
	{ "min-insn-to-prefetch-ratio", 0, -1 },
	{ "min-loop-cond-split-prob", 0, 100 },
	{ "min-nondebug-insn-uid", 0, -1 },
	{ "min-pagesize", 0, -1 },
	{ "min-size-for-stack-sharing", 0, -1 },
	{ "min-spec-prob", 0, -1 },
	{ "min-vect-loop-bound", 0, -1 },
	{ "modref-max-accesses", 0, -1 },
	{ "modref-max-adjustments", 0, 254 },
	{ "modref-max-bases", 0, -1 },
	{ "modref-max-depth", 1, 65536 },
	{ "modref-max-escape-points", 0, -1 },
	{ "modref-max-refs", 0, -1 },
	{ "modref-max-tests", 0, -1 },
	{ "partial-inlining-entry-probability", 0, 100 },
	{ "predictable-branch-outcome", 0, 50 },
	{ "prefetch-dynamic-strides", 0, 1 },
	{ "prefetch-latency", 0, -1 },
	{ "prefetch-min-insn-to-mem-ratio", 0, -1 },
	{ "prefetch-minimum-stride", 0, -1 },
	{ "profile-func-internal-id", 0, 1 },
	{ "ranger-logical-depth", 1, 999 },
	{ "relation-block-limit", 0, 9999 },
	{ "rpo-vn-max-loop-depth", 2, 65536 },
	{ "sccvn-max-alias-queries-per-access", 0, -1 },
	{ "scev-max-expr-complexity", 0, -1 },
	{ "scev-max-expr-size", 0, -1 },
	{ "sched-autopref-queue-depth", 0, -1 },
	{ "sched-mem-true-dep-cost", 0, -1 },
	{ "sched-pressure-algorithm", 1, 2 },
	{ "sched-spec-prob-cutoff", 0, 100 },
	{ "sched-state-edge-prob-cutoff", 0, 100 },
	{ "selsched-insns-to-rename", 0, -1 },
	{ "selsched-max-lookahead", 0, -1 },
	{ "selsched-max-sched-times", 1, 65536 },
	{ "simultaneous-prefetches", 0, -1 },
	{ "sink-frequency-threshold", 0, 100 },
	{ "sms-dfa-history", 0, 16 },
	{ "sms-loop-average-count-threshold", 0, -1 },
	{ "sms-max-ii-factor", 1, 16 },
	{ "sms-min-sc", 1, 2 },
	{ "sra-max-propagations", 0, -1 },
	{ "ssa-name-def-chain-limit", 0, -1 },
	{ "ssp-buffer-size", 1, 65536 },
	{ "stack-clash-protection-guard-size", 12, 30 },
	{ "stack-clash-protection-probe-interval", 10, 16 },
	{ "store-merging-allow-unaligned", 0, 1 },
	{ "store-merging-max-size", 1, 65536 },
	{ "switch-conversion-max-branch-ratio", 1, 65536 },
	{ "tm-max-aggregate-size", 0, -1 },
	{ "tracer-dynamic-coverage", 0, 100 },
	{ "tracer-dynamic-coverage-feedback", 0, 100 },
	{ "tracer-max-code-growth", 0, -1 },
	{ "tracer-min-branch-probability", 0, 100 },
	{ "tracer-min-branch-probability-feedback", 0, 100 },
	{ "tracer-min-branch-ratio", 0, 100 },
	{ "tree-reassoc-width", 0, -1 },
	{ "uninit-control-dep-attempts", 1, 65536 },
	{ "uninlined-function-insns", 0, 1000000 },
	{ "uninlined-function-time", 0, 1000000 },
	{ "uninlined-thunk-insns", 0, 1000000 },
	{ "uninlined-thunk-time", 0, 1000000 },
	{ "unlikely-bb-count-fraction", 0, -1 },
	{ "unroll-jam-max-unroll", 0, -1 },
	{ "unroll-jam-min-percent", 0, 100 },
	{ "use-after-scope-direct-emission-threshold", 0, -1 },
	{ "use-canonical-types", 0, 1 },
	{ "vect-epilogues-nomask", 0, 1 },
	{ "vect-induction-float", 0, -1 },
	{ "vect-inner-loop-cost-factor", 1, 10000 },
	{ "vect-max-peeling-for-alignment", 0, 64 },
	{ "vect-max-version-for-alias-checks", 0, -1 },
	{ "vect-max-version-for-alignment-checks", 0, -1 },
	{ "vect-partial-vector-usage", 0, 2 },
	{ "x86-stlf-window-ninsns", 0, -1 },
};

/* llvm-bolt's options, named without their dashes (vocab.h) */
static const struct vocab_row bolt_rows[] = {
	V_BOOL("align-blocks"),
	V_INT("align-blocks-min-size=", NULL),
	V_INT("align-blocks-threshold=", NULL),
	V_INT("align-functions-max-bytes=", NULL),
	V_INT("align-functions=", NULL),
	V_WORDS("align-macro-fusion=", "none|hot|all"),
	V_INT("align-text=", NULL),
	V_BOOL("allow-stripped"),
	V_FAMILY("asm-dump", VOCAB_OUTPUT, "assembly written to a directory"),
	V_BOOL("assume-abi"),
	V_REFUSED("b", VOCAB_OTHER, "pgbuild gives the input, output, profile and instrumentation itself"),
	V_REFUSED("ba", VOCAB_OTHER, "pgbuild gives the input, output, profile and instrumentation itself"),
	V_INT("block-alignment=", NULL),
	V_TEXT("bolt-id="),
	V_BOOL("bolt-info"),
	V_INT("bolt-seed=", NULL),
	V_REFUSED("boltedcollection", VOCAB_OTHER, "pgbuild gives the input, output, profile and instrumentation itself"),
	V_FAMILY("break-funcs", VOCAB_OTHER, "a debugging option: the named functions trap"),
	V_BOOL("cg-from-perf-data"),
	V_BOOL("cg-ignore-recursive-calls"),
	V_BOOL("cg-use-split-hot-size"),
	V_INT("cold-threshold=", NULL),
	V_FAMILY("conservative-instrumentation", VOCAB_OTHER, "pgbuild gives the input, output, profile and instrumentation itself"),
	V_FAMILY("data", VOCAB_OTHER, "pgbuild gives the input, output, profile and instrumentation itself"),
	V_FAMILY("debug", VOCAB_OUTPUT, "debugging output"),
	V_BOOL("deterministic-debuginfo"),
	V_FAMILY("dot-tooltip-code", VOCAB_OUTPUT, "graphs written to files"),
	V_FAMILY("dump-", VOCAB_OUTPUT, "dumps written to files"),
	V_FAMILY("dwarf-output-path", VOCAB_PATH, "where .dwo files go"),
	V_FAMILY("dwp", VOCAB_PATH, "a DWARF package"),
	V_BOOL("dyno-stats"),
	V_FAMILY("dyno-stats-", VOCAB_OUTPUT, "statistics printed after every pass, or scaled: pgbuild reads the ones -dyno-stats prints"),
	V_BOOL("elim-link-veneers"),
	V_BOOL("eliminate-unreachable"),
	V_BOOL("enable-bat"),
	V_BOOL("equalize-bb-counts"),
	V_INT("execution-count-threshold=", NULL),
	V_BOOL("fix-block-counts"),
	V_BOOL("fix-func-counts"),
	V_BOOL("force-data-relocations"),
	V_TEXT("force-inline="),
	V_BOOL("force-patch"),
	V_BOOL("frame-opt-rm-stores"),
	V_WORDS("frame-opt=", "none|hot|all"),
	V_FAMILY("funcs-file", VOCAB_PATH, "a list of functions read from a file"),
	V_TEXT("funcs-no-regex="),
	V_TEXT("funcs="),
	V_FAMILY("function-order", VOCAB_PATH, "an order of functions read from a file"),
	V_FAMILY("generate-", VOCAB_OUTPUT, "a list written to a file"),
	V_BOOL("group-stubs"),
	V_REFUSED("h", VOCAB_OUTPUT, "the options printed instead of a rewrite"),
	V_FAMILY("help", VOCAB_OUTPUT, "the options printed instead of a rewrite"),
	V_BOOL("hot-data"),
	V_BOOL("hot-functions-at-end"),
	V_BOOL("hot-text"),
	V_TEXT("hot-text-move-sections="),
	V_BOOL("hugify"),
	{ "icf", VOCAB_BOOL, "all|safe|none", 0, VOCAB_OK, NULL },
	V_INT("icp-calls-remaining-percent-threshold=", NULL),
	V_INT("icp-calls-topn=", NULL),
	V_INT("icp-calls-total-percent-threshold=", NULL),
	V_BOOL("icp-eliminate-loads"),
	V_TEXT("icp-funcs="),
	V_BOOL("icp-inline"),
	V_INT("icp-jt-remaining-percent-threshold=", NULL),
	V_BOOL("icp-jt-targets"),
	V_INT("icp-jt-topn=", NULL),
	V_INT("icp-jt-total-percent-threshold=", NULL),
	V_BOOL("icp-jump-tables-targets"),
	V_INT("icp-mp-threshold=", NULL),
	V_BOOL("icp-old-code-sequence"),
	V_INT("icp-top-callsites=", NULL),
	V_INT("icp-topn=", NULL),
	V_BOOL("icp-use-mp"),
	V_WORDS("icp=", "none|calls|jump-tables|all"),
	V_INT("indirect-call-promotion-calls-topn=", NULL),
	V_INT("indirect-call-promotion-jump-tables-topn=", NULL),
	V_INT("indirect-call-promotion-mispredict-threshold=", NULL),
	V_INT("indirect-call-promotion-topn=", NULL),
	V_BOOL("indirect-call-promotion-use-mispredicts"),
	V_WORDS("indirect-call-promotion=", "none|calls|jump-tables|all"),
	V_BOOL("infer-fall-throughs"),
	V_BOOL("inline-all"),
	V_BOOL("inline-ap"),
	V_INT("inline-limit=", NULL),
	V_INT("inline-max-iters=", NULL),
	V_BOOL("inline-memcpy"),
	V_BOOL("inline-small-functions"),
	V_INT("inline-small-functions-bytes=", NULL),
	V_BOOL("insert-retpolines"),
	V_FAMILY("instrument", VOCAB_OTHER, "pgbuild gives the input, output, profile and instrumentation itself"),
	V_FAMILY("instrumentation-", VOCAB_OTHER, "pgbuild gives the input, output, profile and instrumentation itself"),
	V_BOOL("iterative-guess"),
	V_BOOL("jt-footprint-optimize-for-icache"),
	V_BOOL("jt-footprint-reduction"),
	V_WORDS("jump-tables=", "none|basic|move|split|aggressive"),
	V_BOOL("keep-aranges"),
	V_FAMILY("keep-tmp", VOCAB_OUTPUT, "an intermediate file kept"),
	V_BOOL("lite"),
	V_INT("lite-threshold-count=", NULL),
	V_INT("lite-threshold-pct=", NULL),
	V_INT("max-data-relocations=", NULL),
	V_INT("max-funcs=", NULL),
	V_BOOL("mcf-use-rarcs"),
	V_TEXT("memcpy1-spec="),
	V_BOOL("min-branch-clusters"),
	V_BOOL("no-huge-pages"),
	V_BOOL("no-inline"),
	V_BOOL("no-scan"),
	V_BOOL("no-threads"),
	V_REFUSED("o", VOCAB_OTHER, "pgbuild gives the input, output, profile and instrumentation itself"),
	V_REFUSED("p", VOCAB_OTHER, "pgbuild gives the input, output, profile and instrumentation itself"),
	V_TEXT("pad-funcs="),
	V_WORDS("peepholes=", "none|double-jumps|tailcall-traps|useless-branches|all"),
	V_FAMILY("perfdata", VOCAB_OTHER, "pgbuild gives the input, output, profile and instrumentation itself"),
	V_WORDS("plt=", "none|hot|all"),
	V_BOOL("preserve-blocks-alignment"),
	V_FAMILY("print-", VOCAB_OUTPUT, "BOLT's internals printed"),
	V_BOOL("profile-ignore-hash"),
	V_WORDS("r11-availability=", "never|always|abi"),
	V_BOOL("reg-reassign"),
	V_BOOL("relocs"),
	V_BOOL("remove-symtab"),
	V_WORDS("reorder-blocks=", "none|reverse|normal|branch-predictor|cache|cache+|ext-tsp|cluster-shuffle"),
	V_WORDS("reorder-data-algo=", "count|funcs"),
	V_BOOL("reorder-data-inplace"),
	V_INT("reorder-data-max-bytes=", NULL),
	V_INT("reorder-data-max-symbols=", NULL),
	V_TEXT("reorder-data="),
	V_BOOL("reorder-functions-use-hot-size"),
	V_WORDS("reorder-functions=", "none|exec-count|hfsort|hfsort+|cdsort|pettis-hansen|random|user"),
	V_TEXT("reorder-skip-symbols="),
	V_TEXT("reorder-symbols="),
	V_FAMILY("report-", VOCAB_OUTPUT, "reports printed"),
	V_BOOL("retpoline-lfence"),
	V_FAMILY("runtime-", VOCAB_CODE, "a runtime library linked into the rewritten binary"),
	V_WORDS("sctc-mode=", "always|preserve|heuristic"),
	V_BOOL("sequential-disassembly"),
	V_INT("shrink-wrapping-threshold=", NULL),
	V_BOOL("simplify-conditional-tail-calls"),
	V_BOOL("simplify-rodata-loads"),
	V_FAMILY("skip-funcs-file", VOCAB_PATH, "a list of functions read from a file"),
	V_TEXT("skip-funcs="),
	V_INT("split-align-threshold=", NULL),
	V_BOOL("split-all-cold"),
	V_BOOL("split-eh"),
	V_BOOL("split-functions"),
	V_WORDS("split-strategy=", "profile2|cdsplit|random2|randomN|all"),
	V_INT("split-threshold=", NULL),
	V_INT("stale-threshold=", NULL),
	V_BOOL("strict"),
	V_BOOL("strip-rep-ret"),
	V_WORDS("tail-duplication=", "none|aggressive|moderate|cache"),
	V_INT("tasks-per-thread=", NULL),
	V_INT("thread-count=", NULL),
	V_FAMILY("time-", VOCAB_OUTPUT, "timings printed"),
	V_BOOL("trap-avx512"),
	V_BOOL("trap-old-code"),
	V_INT("tsp-threshold=", NULL),
	V_BOOL("update-debug-sections"),
	V_BOOL("use-aggr-reg-reassign"),
	V_BOOL("use-compact-aligner"),
	V_BOOL("use-edge-counts"),
	V_BOOL("use-gnu-stack"),
	V_BOOL("use-old-text"),
	V_REFUSED("v", VOCAB_OUTPUT, "verbose output"),
	V_BOOL("verify-cfg"),
	V_REFUSED("version", VOCAB_OUTPUT, "the version printed instead of a rewrite"),
	V_REFUSED("w", VOCAB_OTHER, "pgbuild gives the input, output, profile and instrumentation itself"),
	V_FAMILY("write-", VOCAB_OUTPUT, "a file written"),
	V_BOOL("x86-align-branch-boundary-hot-only"),
	V_BOOL("x86-strip-redundant-address-size"),
};

/* Linker options a policy may pass with -Wl, (in ldflags): what links
 * faster code, or harder code, and nothing that names a file. */
static const char *const link_exact[] = {
	"--as-needed", "--build-id", "--emit-relocs", "--gc-sections", "--no-as-needed",
	"--no-gc-sections", "--no-relax", "--relax", "--sort-common", "-Bsymbolic-functions",
	"-O0", "-O1", "-O2", "-q", NULL,
};
static const char *const link_prefix[] = {
	"--build-id=", "--compress-debug-sections=", "--hash-style=", "--icf=",
	"--sort-section=", NULL,
};
/* ... and after -z (hardening, page layout) */
static const char *const z_exact[] = {
	"combreloc", "defs", "ibt", "lazy", "noexecstack", "nopack-relative-relocs", "norelro",
	"noseparate-code", "now", "pack-relative-relocs", "relro", "separate-code", "shstk",
	"text", NULL,
};
static const char *const z_prefix[] = { "common-page-size=", "max-page-size=", NULL };

#define VETTED_TEXT "-Wl,-O1, --gc-sections, --as-needed, --emit-relocs, --hash-style=, --build-id, --icf=, --sort-common, -z relro, -z now, -z noexecstack ..."

#define NR(a) (sizeof(a) / sizeof((a)[0]))

const struct vocab_row *vocab_table(size_t *n)
{
	*n = NR(rows);
	return rows;
}

const struct vocab_row *vocab_bolt_table(size_t *n)
{
	*n = NR(bolt_rows);
	return bolt_rows;
}

const struct vocab_param *vocab_params(size_t *n)
{
	*n = NR(params);
	return params;
}

static int in_list(const char *s, const char *const *exact, const char *const *prefix)
{
	for (int i = 0; exact[i]; i++)
		if (!strcmp(s, exact[i]))
			return 1;
	for (int i = 0; prefix && prefix[i]; i++)
		if (!strncmp(s, prefix[i], strlen(prefix[i])) && s[strlen(prefix[i])])
			return 1;
	return 0;
}

/* Does a row take a value after its name ("-flto=", "-gdwarf-")? */
static int valued(const struct vocab_row *r)
{
	return r->type == VOCAB_INT || r->type == VOCAB_WORDS || r->type == VOCAB_ALIGN ||
	       r->type == VOCAB_TEXT;
}

/*
 * How much of flag row covers: the length of its name, or 0 when it does
 * not cover flag.  A family, the warnings and the parameters cover what
 * starts with them; a valued row what starts with its name; a dashed
 * row its word and what follows it after '-' or '='; any other row its
 * word alone, and for llvm-bolt (bolt) its word with "=VALUE" too.
 */
static size_t row_covers(const struct vocab_row *r, const char *flag, int bolt)
{
	size_t n = strlen(r->name);

	if (strncmp(flag, r->name, n))
		return 0;
	switch (r->type) {
	case VOCAB_FAMILY:
	case VOCAB_WARNING:
	case VOCAB_PARAM:
		return n;
	case VOCAB_DASHED:
		return !flag[n] || flag[n] == '-' || flag[n] == '=' ? n : 0;
	default:
		if (valued(r))
			return n;
		return !flag[n] || (bolt && flag[n] == '=') ? n : 0;
	}
}

/* The longest row of t (n rows) that covers flag, or NULL. */
static const struct vocab_row *find_row(const struct vocab_row *t, size_t n, const char *flag,
					int bolt)
{
	const struct vocab_row *best = NULL;
	size_t best_len = 0;
	for (size_t i = 0; i < n; i++) {
		size_t len = row_covers(&t[i], flag, bolt);
		if (len && len >= best_len) {
			best = &t[i];
			best_len = len;
		}
	}
	return best;
}

static const char *const class_text[] = {
	[VOCAB_CODE] = "it loads code",
	[VOCAB_PATH] = "it names a path",
	[VOCAB_OUTPUT] = "it changes what the compiler produces",
	[VOCAB_OTHER] = "it is not an optimization option",
	[VOCAB_UNKNOWN] = "it is not an optimization option the vocabulary knows",
};
/* ... and for llvm-bolt's options (VOCAB_OTHER: the detail alone) */
static const char *const bolt_class_text[] = {
	[VOCAB_CODE] = "it loads code",
	[VOCAB_PATH] = "it names a path",
	[VOCAB_OUTPUT] = "it prints or writes files",
	[VOCAB_OTHER] = NULL,
	[VOCAB_UNKNOWN] = "it is none of llvm-bolt's layout and optimization options the vocabulary knows",
};

static enum vocab_class refuse_as(const char *const *texts, enum vocab_class cls,
				  const char *detail, struct strbuf *why)
{
	if (!texts[cls])
		strbuf_addstr(why, detail ? detail : "");
	else if (detail)
		strbuf_addf(why, "%s (%s)", texts[cls], detail);
	else
		strbuf_addstr(why, texts[cls]);
	return cls;
}

static enum vocab_class refuse(enum vocab_class cls, const char *detail, struct strbuf *why)
{
	return refuse_as(class_text, cls, detail, why);
}

/* A decimal integer (a '-' first when negative may be), at most 9 digits,
 * written as C writes it: no leading zero (so that the hardening table's
 * -D_FORTIFY_SOURCE=0 and =1 are the only spellings of those values, not
 * =00 and =01): 1 with its value, else 0. */
static int decimal(const char *s, int negative, long *out)
{
	const char *d = s + (negative && *s == '-');
	size_t n = strspn(d, "0123456789");
	if (!n || d[n] || n > 9 || (n > 1 && d[0] == '0'))
		return 0;
	*out = strtol(s, NULL, 10);
	return 1;
}

/* Is word one of "a|b|c" ("<n>": any decimal integer)? */
static int in_words(const char *word, const char *words)
{
	size_t len = strlen(word);
	long v;
	for (const char *p = words; p && *p;) {
		size_t n = strcspn(p, "|");
		if ((n == len && !strncmp(p, word, n)) ||
		    (n == 3 && !strncmp(p, "<n>", 3) && decimal(word, 0, &v)))
			return 1;
		p += n + (p[n] == '|');
	}
	return 0;
}

/* "a, b or c" of "a|b|c", appended to sb */
static void words_text(const char *words, struct strbuf *sb)
{
	for (const char *p = words; *p;) {
		size_t n = strcspn(p, "|");
		const char *next = p + n + (p[n] == '|');
		const char *sep = p == words ? "" : *next ? ", " : " or ";
		if (n == 3 && !strncmp(p, "<n>", 3))
			strbuf_addf(sb, "%sN", sep);
		else
			strbuf_addf(sb, "%s%.*s", sep, (int)n, p);
		p = next;
	}
}

/* N[:M[:N2[:M2]]] */
static int align_value(const char *v)
{
	int parts = 0;
	for (const char *p = v;; p++) {
		size_t n = strspn(p, "0123456789");
		if (!n || n > 9 || ++parts > 4)
			return 0;
		p += n;
		if (!*p)
			return 1;
		if (*p != ':')
			return 0;
	}
}

/* [no-]NAME[=VALUE]: what follows -W in a warning option */
static int warning_form(const char *s)
{
	size_t n;
	if (!strncmp(s, "no-", 3))
		s += 3;
	if (!*s)
		return 0;
	n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_+.-");
	if (!s[n])
		return 1;
	return s[n] == '=' && s[n + 1] && strspn(s + n + 1,
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+.-=") ==
		strlen(s + n + 1);
}

/* bsearch: key "NAME=N" against a parameter, by strcmp() of the names */
static int cmp_param(const void *key, const void *p)
{
	const char *k = key;
	const char *name = ((const struct vocab_param *)p)->name;
	size_t kn = strcspn(k, "=");
	int c = strncmp(k, name, kn);
	return c ? c : name[kn] ? -1 : 0;
}

/* --param=NAME=N: "" when fine, else what was expected (in exp) */
static int param_value(const char *s, struct strbuf *exp)
{
	const struct vocab_param *p = bsearch(s, params, NR(params), sizeof(params[0]), cmp_param);
	long v;
	if (!p || !strchr(s, '=')) {
		strbuf_addstr(exp, "expected --param=NAME=N, NAME one of the parameters gcc 12 --help=params lists");
		return 0;
	}
	if (!decimal(s + strlen(p->name) + 1, p->min < 0, &v) || v < p->min ||
	    (p->max >= 0 && v > p->max)) {
		strbuf_addf(exp, "expected --param=%s=N, N an integer from %ld", p->name, p->min);
		if (p->max >= 0)
			strbuf_addf(exp, " to %ld", p->max);
		return 0;
	}
	return 1;
}

/* llvm-bolt's boolean values */
static int bolt_bool(const char *v)
{
	return !strcmp(v, "true") || !strcmp(v, "false") || !strcmp(v, "TRUE") ||
	       !strcmp(v, "FALSE") || !strcmp(v, "True") || !strcmp(v, "False") ||
	       !strcmp(v, "1") || !strcmp(v, "0");
}

/*
 * The value of flag under row r (what follows r's name): 1 when the row
 * takes it; else 0 with what it expects in exp.  A value is never a path
 * (checked before, by the caller).
 */
static int value_ok(const struct vocab_row *r, const char *flag, int bolt, struct strbuf *exp)
{
	const char *v = flag + strlen(r->name);
	const char *d = bolt ? "-" : "";   /* llvm-bolt's rows have no dash */
	long n;

	switch (r->type) {
	case VOCAB_INT:
		if (decimal(v, 0, &n)) {
			long lo, hi;
			if (!r->values || (sscanf(r->values, "%ld,%ld", &lo, &hi) == 2 && n >= lo && n <= hi))
				return 1;
		}
		strbuf_addf(exp, "expected %s%sN, N a decimal integer", d, r->name);
		if (r->values)
			strbuf_addf(exp, " from %.*s to %s", (int)strcspn(r->values, ","), r->values,
				    strchr(r->values, ',') + 1);
		return 0;
	case VOCAB_WORDS:
		if (in_words(v, r->values))
			return 1;
		strbuf_addf(exp, "expected %s%s", d, r->name);
		words_text(r->values, exp);
		return 0;
	case VOCAB_ALIGN:
		if (align_value(v))
			return 1;
		strbuf_addf(exp, "expected %sN[:M[:N2[:M2]]]", r->name);
		return 0;
	case VOCAB_TEXT:
		if (*v && strspn(v, "!\"#$%&'()*+,-.0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`"
				    "abcdefghijklmnopqrstuvwxyz{|}~") == strlen(v))
			return 1;
		strbuf_addf(exp, "expected %s%sTEXT, printable", d, r->name);
		return 0;
	case VOCAB_DASHED:
		if (!*v || (v[0] == '-' && v[1] && strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789-") ==
				   strlen(v)))
			return 1;
		strbuf_addf(exp, "expected %s[-KIND...]", r->name);
		return 0;
	case VOCAB_WARNING:
		if (!*v || warning_form(v))
			return 1;
		strbuf_addstr(exp, "expected -W[no-]NAME[=VALUE]");
		return 0;
	case VOCAB_PARAM:
		return param_value(v, exp);
	case VOCAB_BOOL:
		if (!*v || (bolt && *v == '=' && (bolt_bool(v + 1) || in_words(v + 1, r->values))))
			return 1;
		strbuf_addf(exp, "expected -%s or -%s=true|false", r->name, r->name);
		if (r->values) {
			strbuf_addstr(exp, ", or -");
			strbuf_addstr(exp, r->name);
			strbuf_addstr(exp, "=");
			words_text(r->values, exp);
		}
		return 0;
	default:
		if (!*v)
			return 1;
		strbuf_addf(exp, "expected %s%s alone", d, r->name);
		return 0;
	}
}

/* -Wl,A,B,...: every linker option from the vetted lists. */
static enum vocab_class check_wl(const char *flag, struct strbuf *why)
{
	char buf[1024];
	const char *p = flag + 4;
	int after_z = 0;

	if (!*p)
		return refuse(VOCAB_OTHER, "-Wl, without a linker option", why);
	while (*p) {
		size_t n = strcspn(p, ",");
		int ok;
		snprintf(buf, sizeof(buf), "%.*s", (int)(n < sizeof(buf) ? n : sizeof(buf) - 1), p);
		if (n >= sizeof(buf) || strchr(buf, '/'))
			ok = 0;
		else if (after_z)
			ok = in_list(buf, z_exact, z_prefix);
		else if (!strcmp(buf, "-z"))
			ok = after_z = 1;
		else if (!strncmp(buf, "-z", 2))
			ok = in_list(buf + 2, z_exact, z_prefix);
		else
			ok = in_list(buf, link_exact, link_prefix);
		if (!ok) {
			struct strbuf d = STRBUF_INIT;
			enum vocab_class cls = VOCAB_OTHER;
			if (strstr(buf, "plugin"))
				cls = VOCAB_CODE;
			else if (strchr(buf, '/') || !strncmp(buf, "-rpath", 6) ||
				 !strcmp(buf, "-T") || !strncmp(buf, "--script", 8) ||
				 !strncmp(buf, "--dynamic-linker", 16) || !strncmp(buf, "-L", 2))
				cls = VOCAB_PATH;
			strbuf_addf(&d, "the linker option %s%s is outside the vetted set: " VETTED_TEXT,
				    after_z ? "-z " : "", buf);
			refuse(cls, d.buf, why);
			strbuf_release(&d);
			return cls;
		}
		if (after_z && strcmp(buf, "-z"))
			after_z = 0;
		p += n;
		if (*p == ',')
			p++;
	}
	if (after_z)
		return refuse(VOCAB_OTHER, "-z without its keyword", why);
	return VOCAB_OK;
}

/* -fno-X, -mno-X, -gno-X: the negation of -fX (... -gX) */
static int negation(const char *flag)
{
	return flag[0] == '-' && flag[1] && strchr("fmg", flag[1]) && !strncmp(flag + 2, "no-", 3);
}

/* May row's option be suggested for word, a flag in cflags (link 0) or
 * ldflags?  Not a refused row, nor the -W and --param= prefixes (any name
 * after them is theirs), nor a link option in cflags; and only one of
 * word's kind, its first two characters (-f, -m, -O, --): a misspelt name
 * is the mistake to help with, and "-pipe" is no "-fpie". */
static int suggestable(const struct vocab_row *r, const char *word, int link)
{
	return r->type != VOCAB_FAMILY && r->type != VOCAB_REFUSED && r->type != VOCAB_WARNING &&
	       r->type != VOCAB_PARAM && (link || !(r->flags & VOCAB_LINK_ONLY)) &&
	       !strncmp(r->name, word, 2);
}

/*
 * "did you mean X?" for a compiler flag the table does not know, or NULL
 * when no row is close (suggest.h's measure, the one every "did you mean"
 * uses).  A valued flag ("-falign-functons=32") is matched by its name
 * and '=' against the valued rows and keeps its value; a negation
 * ("-fno-omit-frame-pointr") against the booleans and keeps its "no-".
 * Malloced.
 */
static char *did_you_mean(const char *flag, int link)
{
	const char **names = xmalloc((NR(rows) + 1) * sizeof(*names));
	const char *eq = strchr(flag, '='), *hint = NULL;
	char *word, *out = NULL;
	size_t nr = 0;

	if (!eq && negation(flag)) {
		/* -fno-X: the boolean -fX nearest to it */
		word = xasprintf("-%c%s", flag[1], flag + 5);
		for (size_t i = 0; i < NR(rows); i++)
			if (rows[i].type == VOCAB_BOOL && suggestable(&rows[i], word, link))
				names[nr++] = rows[i].name;
		names[nr] = NULL;
		hint = suggest_word(word, names);
		if (hint)
			out = xasprintf("did you mean -%cno-%s?", hint[1], hint + 2);
		free(word);
	}
	if (!out) {
		nr = 0;
		word = eq ? xstrndup(flag, (size_t)(eq - flag) + 1) : xstrdup(flag);
		for (size_t i = 0; i < NR(rows); i++)
			if (suggestable(&rows[i], word, link) && !valued(&rows[i]) == !eq)
				names[nr++] = rows[i].name;
		names[nr] = NULL;
		hint = suggest_word(word, names);
		if (hint)
			out = xasprintf("did you mean %s%s?", hint, eq ? eq + 1 : "");
		free(word);
	}
	free(names);
	return out;
}

/*
 * Check word (a compiler flag, or with bolt an llvm-bolt option's name and
 * value, dashes taken off) against table t.  texts: the classes' words.
 * link: the flag is for ldflags (a compiler flag's suggestion).
 */
static enum vocab_class check_word(const struct vocab_row *t, size_t n, const char *word,
				   int bolt, int link, const char *const *texts,
				   struct strbuf *why)
{
	const struct vocab_row *row = find_row(t, n, word, bolt);
	const char *value;
	char *pos = NULL;
	enum vocab_class cls;

	if (!row && !bolt && negation(word)) {
		/* -fno-X is the setting -fX: its row decides, a boolean's or a
		 * refused family's */
		pos = xasprintf("-%c%s", word[1], word + 5);
		row = find_row(t, n, pos, 0);
		if (row && row->type != VOCAB_BOOL && row->type != VOCAB_FAMILY)
			row = NULL;
		if (row)
			word = pos;
	}
	if (!row) {
		/* not in the table: the nearest option that is, when one is close */
		char *hint = bolt ? NULL : did_you_mean(word, link);
		cls = refuse_as(texts, VOCAB_UNKNOWN, hint, why);
		free(hint);
		goto out;
	}
	if (row->type == VOCAB_FAMILY || row->type == VOCAB_REFUSED) {
		cls = refuse_as(texts, row->cls, row->why, why);
		goto out;
	}
	value = word + strlen(row->name);
	if (strchr(value, '/')) {
		cls = refuse_as(texts, VOCAB_PATH, "its value is a path", why);
		goto out;
	}
	if (row->type == VOCAB_DASHED && strchr(value, '=')) {
		cls = refuse_as(texts, row->cls, row->why, why);
		goto out;
	}
	{
		struct strbuf exp = STRBUF_INIT;
		if (value_ok(row, word, bolt, &exp)) {
			cls = VOCAB_OK;
		} else if (row->cls != VOCAB_OK) {
			cls = refuse_as(texts, row->cls, row->why, why);
		} else {
			strbuf_addf(why, "its value is not one the vocabulary allows (%s)",
				    row->why ? row->why : exp.buf);
			cls = VOCAB_OTHER;
		}
		strbuf_release(&exp);
	}
out:
	free(pos);
	return cls;
}

enum vocab_class vocab_check(const char *flag, int link, struct strbuf *why)
{
	const struct vocab_row *row;
	enum vocab_class cls;

	if (!strncmp(flag, "-Wl,", 4)) {
		if (!link) {
			strbuf_addf(why, "it is a link option: write it as ldflags += %s", flag);
			return VOCAB_OTHER;
		}
		return check_wl(flag, why);
	}
	cls = check_word(rows, NR(rows), flag, 0, link, class_text, why);
	if (cls == VOCAB_OK && !link && (row = find_row(rows, NR(rows), flag, 0)) &&
	    (row->flags & VOCAB_LINK_ONLY)) {
		strbuf_addf(why, "it is a link option: write it as ldflags += %s", flag);
		return VOCAB_OTHER;
	}
	return cls;
}

enum vocab_class vocab_bolt_check(const char *word, struct strbuf *why)
{
	const char *name = word + (word[0] == '-') + (word[0] == '-' && word[1] == '-');

	if (word[0] != '-' || !*name || *name == '=' || *name == '-')
		return refuse_as(bolt_class_text, VOCAB_UNKNOWN, NULL, why);
	return check_word(bolt_rows, NR(bolt_rows), name, 1, 0, bolt_class_text, why);
}

/* ---------------- hardening ---------------- */

static const struct {
	const char *name;   /* as the caller writes it */
	const char *what;   /* what it protects */
} hardening[VOCAB_HARD_NR] = {
	[VOCAB_HARD_STACK_PROTECTOR] = { "stack-protector", "the stack protector's canaries (-fstack-protector-strong)" },
	[VOCAB_HARD_CET] = { "cet", "Intel CET's branch tracking and shadow stack (-fcf-protection)" },
	[VOCAB_HARD_PIE] = { "pie", "a position-independent executable, ASLR of the program's own code" },
	[VOCAB_HARD_RELRO] = { "relro", "RELRO, relocated data read-only after start-up (-z relro)" },
	[VOCAB_HARD_BIND_NOW] = { "bind-now", "BIND_NOW, every symbol bound at start-up and the whole GOT read-only (-z now)" },
	[VOCAB_HARD_FORTIFY] = { "fortify", "_FORTIFY_SOURCE, glibc's checked string and memory functions" },
	[VOCAB_HARD_STACK_CLASH] = { "stack-clash", "stack clash protection (-fstack-clash-protection)" },
};

/* The flags that weaken a class when added (add 1) or removed (add 0); a
 * name ending in '*' covers every flag it begins. */
static const struct {
	const char *flag;
	int add;
	enum vocab_hardening h;
} weakening[] = {
	{ "-fno-stack-protector", 1, VOCAB_HARD_STACK_PROTECTOR },
	{ "-fstack-protector", 1, VOCAB_HARD_STACK_PROTECTOR },
	{ "-fstack-protector-explicit", 1, VOCAB_HARD_STACK_PROTECTOR },
	{ "-fstack-protector*", 0, VOCAB_HARD_STACK_PROTECTOR },
	/* the smallest char array -fstack-protector guards (gcc's 8) */
	{ "--param=ssp-buffer-size=*", 1, VOCAB_HARD_STACK_PROTECTOR },
	{ "-fcf-protection=none", 1, VOCAB_HARD_CET },
	{ "-fcf-protection=branch", 1, VOCAB_HARD_CET },
	{ "-fcf-protection=return", 1, VOCAB_HARD_CET },
	/* "check" instruments nothing: it only checks at an LTO link */
	{ "-fcf-protection=check", 1, VOCAB_HARD_CET },
	{ "-mmanual-endbr", 1, VOCAB_HARD_CET },
	{ "-fcf-protection*", 0, VOCAB_HARD_CET },
	{ "-fno-pie", 1, VOCAB_HARD_PIE },
	{ "-fno-PIE", 1, VOCAB_HARD_PIE },
	{ "-fno-pic", 1, VOCAB_HARD_PIE },
	{ "-fno-PIC", 1, VOCAB_HARD_PIE },
	{ "-no-pie", 1, VOCAB_HARD_PIE },
	{ "-fpie", 0, VOCAB_HARD_PIE },
	{ "-fPIE", 0, VOCAB_HARD_PIE },
	{ "-fpic", 0, VOCAB_HARD_PIE },
	{ "-fPIC", 0, VOCAB_HARD_PIE },
	{ "-pie", 0, VOCAB_HARD_PIE },
	{ "-U_FORTIFY_SOURCE", 1, VOCAB_HARD_FORTIFY },
	{ "-D_FORTIFY_SOURCE", 1, VOCAB_HARD_FORTIFY },
	{ "-D_FORTIFY_SOURCE=0", 1, VOCAB_HARD_FORTIFY },
	{ "-D_FORTIFY_SOURCE=1", 1, VOCAB_HARD_FORTIFY },
	{ "-O0", 1, VOCAB_HARD_FORTIFY },
	{ "-D_FORTIFY_SOURCE*", 0, VOCAB_HARD_FORTIFY },
	{ "-fno-stack-clash-protection", 1, VOCAB_HARD_STACK_CLASH },
	/* a larger guard or probe interval than gcc's (4 KiB) leaves frames
	 * up to that size unprobed: guard-size=30 probes none below 1 GiB */
	{ "--param=stack-clash-protection-guard-size=*", 1, VOCAB_HARD_STACK_CLASH },
	{ "--param=stack-clash-protection-probe-interval=*", 1, VOCAB_HARD_STACK_CLASH },
	{ "-fstack-clash-protection", 0, VOCAB_HARD_STACK_CLASH },
};

/* ... and the linker's -z keywords inside a -Wl, word */
static const struct {
	const char *keyword;
	int add;
	enum vocab_hardening h;
} weakening_z[] = {
	{ "norelro", 1, VOCAB_HARD_RELRO },
	{ "relro", 0, VOCAB_HARD_RELRO },
	{ "lazy", 1, VOCAB_HARD_BIND_NOW },
	{ "now", 0, VOCAB_HARD_BIND_NOW },
	{ "ibt", 0, VOCAB_HARD_CET },
	{ "shstk", 0, VOCAB_HARD_CET },
};

static unsigned weakens_z(const char *keyword, size_t len, int add)
{
	unsigned mask = 0;
	for (size_t i = 0; i < NR(weakening_z); i++)
		if (weakening_z[i].add == add && strlen(weakening_z[i].keyword) == len &&
		    !strncmp(keyword, weakening_z[i].keyword, len))
			mask |= 1u << weakening_z[i].h;
	return mask;
}

unsigned vocab_weakens(const char *flag, int add)
{
	unsigned mask = 0;

	if (!strncmp(flag, "-Wl,", 4)) {
		int after_z = 0;
		for (const char *p = flag + 4; *p;) {
			size_t n = strcspn(p, ",");
			if (after_z)
				mask |= weakens_z(p, n, add);
			else if (n > 2 && !strncmp(p, "-z", 2))
				mask |= weakens_z(p + 2, n - 2, add);
			after_z = n == 2 && !strncmp(p, "-z", 2);
			p += n + (p[n] == ',');
		}
		return mask;
	}
	for (size_t i = 0; i < NR(weakening); i++) {
		const char *w = weakening[i].flag;
		size_t n = strlen(w);
		if (weakening[i].add != add)
			continue;
		if (w[n - 1] == '*' ? !strncmp(flag, w, n - 1) : !strcmp(flag, w))
			mask |= 1u << weakening[i].h;
	}
	return mask;
}

const char *vocab_hardening_name(enum vocab_hardening h)
{
	return h < VOCAB_HARD_NR ? hardening[h].name : NULL;
}

const char *vocab_hardening_what(enum vocab_hardening h)
{
	return h < VOCAB_HARD_NR ? hardening[h].what : NULL;
}

int vocab_parse_weaken(const char *list, unsigned *mask, struct strbuf *err)
{
	const char *names[VOCAB_HARD_NR + 1];
	unsigned m = 0;

	for (int i = 0; i < VOCAB_HARD_NR; i++)
		names[i] = hardening[i].name;
	names[VOCAB_HARD_NR] = NULL;
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		char *w = xstrndup(p, n), *s = w, *e;
		int found = -1;
		while (isspace((unsigned char)*s))
			s++;
		e = s + strlen(s);
		while (e > s && isspace((unsigned char)e[-1]))
			*--e = '\0';
		for (int i = 0; i < VOCAB_HARD_NR && found < 0 && *s; i++)
			if (!strcmp(s, names[i]))
				found = i;
		if (found < 0 && *s) {
			const char *hint = suggest_word(s, names);
			strbuf_addf(err, "unknown hardening class \"%s\": expected a comma-separated list of ", s);
			for (int i = 0; i < VOCAB_HARD_NR; i++)
				strbuf_addf(err, "%s%s", i ? i + 1 < VOCAB_HARD_NR ? ", " : " or " : "",
					    names[i]);
			if (hint)
				strbuf_addf(err, " (did you mean \"%s\"?)", hint);
			free(w);
			return -1;
		}
		if (found >= 0)
			m |= 1u << found;
		free(w);
		p += n + (p[n] == ',');
	}
	*mask |= m;
	return 0;
}

void vocab_weaken_text(unsigned mask, struct strbuf *out)
{
	int first = 1;
	for (int i = 0; i < VOCAB_HARD_NR; i++)
		if (mask & (1u << i)) {
			strbuf_addf(out, "%s%s", first ? "" : ",", hardening[i].name);
			first = 0;
		}
}
