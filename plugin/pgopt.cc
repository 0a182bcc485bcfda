/*
 * pgopt.cc - pgopt.so, the GCC plugin of pgoptcc: records, per function,
 * what the optimizer did, and stores that record inside the object file.
 *
 * Licensed under the GNU GPL v3 or later (a GCC plugin must be
 * GPL-compatible; see COPYING).  C++ only because GCC's plugin API is; the
 * code is kept C-like.  Built with g++ -fno-rtti -fno-exceptions against
 * $(gcc -print-file-name=plugin)/include; it loads only into that GCC.
 *
 * What it records (JSON lines; read them with `pgbuild inspect`, and see
 * README.md, section "pgopt.so and pgbuild inspect"; this header is the
 * reference for the record and for the options below):
 *   one "unit" line per translation unit (or LTO partition): the TU name,
 *   stage, GCC and plugin versions, compile flags, flags pgoptcc added and
 *   removed, policy rules that matched, the unit's optimization options
 *   ("opt"); then one "fn" line per function emitted: assembler name,
 *   source file:line, optimization level and key flags in effect for it
 *   (opt_for_fn; written only where they differ from the unit's "opt"),
 *   estimated size early and final, every inlined call site (callee, call
 *   location, inlining chain, early / IPA / link-time), calls left alone
 *   with GCC's own reason (calls to GCC builtins - __builtin_*, and library
 *   functions GCC treats as builtins such as memcpy - left out), clone origin, hot/cold/noinline attributes
 *   (empty list and "normal" frequency left out) and the text section it
 *   lands in.  Functions whose body disappeared after early inlining keep
 *   their inlined sites in an "emitted":false line.
 *
 * How inlining is seen: GCC removes an inline clone from the call graph
 * right after copying its body into the caller (tree-inline's
 * expand_call_inline).  A cgraph removal hook sees that moment for early
 * inlining, IPA inlining and LTO link-time inlining alike, with the call
 * statement (its location, and its BLOCK, which gives the chain of
 * functions the call was itself inlined from).  That is the same set of
 * decisions -fopt-info-inline-optimized prints.
 *
 * Where it goes: a non-allocated ELF section ".pgopt.log" (like
 * .GCC.command.line), so the linker concatenates the records of all objects
 * into the executable, and ccache/distcc/make install carry it along.
 *   - plain compile: written into the assembler output at the end of the
 *     unit (all functions are known by then);
 *   - compile with -flto: as a top-level asm statement, which is streamed
 *     with the IR and emitted at link time (LTO drops every other non-LTO
 *     section of such objects); stage "compile-lto", before IPA;
 *   - compile with -flto -ffat-lto-objects: that, and then a second unit
 *     (stage "compile-fat") for the object's own, non-LTO code, after IPA
 *     inlining, as a plain compile records it (a non-LTO link keeps both);
 *   - LTO link (lto1 -fltrans): each partition records the link-time
 *     (cross-object) decisions, again in its assembler output.
 * With -fplugin-arg-pgopt-log=DIR the same lines also go to
 * DIR/functions/<tu>.jsonl (<tu>.ltransN.jsonl for link partitions).
 *
 * Actions: hot=FILE / cold=FILE (one function name per line, '#' comments)
 * add the hot / cold attribute to those functions as they are declared, so
 * GCC optimizes them accordingly and places them in .text.hot /
 * .text.unlikely.  At an LTO link the same lists also set the functions'
 * frequency in the call graph.
 *
 * Options (-fplugin-arg-pgopt-KEY[=VALUE]):
 *   tu=PATH        translation unit name (empty or absent: the main input file)
 *   rules=LIST     comma-separated policy file:line of the matching sections
 *   added=FLAGS    space-separated flags pgoptcc added (may be empty)
 *   removed=FLAGS  space-separated flags pgoptcc removed (may be empty)
 *   log=DIR        also write DIR/functions/<tu>.jsonl
 *   hot=FILE       mark the functions listed in FILE hot
 *   cold=FILE      mark the functions listed in FILE cold
 *   list-digest=HEX  digest of the hot/cold lists' contents (hex digits),
 *                  put there by pgoptcc so that an edited list changes the
 *                  command line (ccache, make's rebuild checks); recorded
 *                  as the unit's "list_digest", otherwise unused
 *   verbose        say what the plugin does (GCC notes on stderr)
 * An unknown key, or a missing value, is a GCC error naming the option.
 *
 * Usage:
 *   gcc -O2 -c x.c -fplugin=/abs/lib/pgoptcc/pgopt.so -fplugin-arg-pgopt-tu=x.c
 *   readelf -p .pgopt.log x.o        # or: pgbuild inspect x.o
 * Debugging: -fplugin-arg-pgopt-verbose, and -fdump-passes shows the passes
 * "pgopt_sizes", "pgopt_calls", "pgopt_collect" and "pgopt_section".
 *
 * The plugin is silent unless verbose: autoconf treats any compiler output
 * on stderr as a failed probe.
 */
#include "gcc-compat.h"

#include <sys/stat.h>
#include <errno.h>
#include <unistd.h>

int plugin_is_GPL_compatible;

#ifndef PGOPT_VERSION
#define PGOPT_VERSION "0.0.0"
#endif

static struct plugin_info pgopt_plugin_info = {
	PGOPT_VERSION,
	"pgopt: records per-function optimization decisions in .pgopt.log\n"
	"-fplugin-arg-pgopt-tu=PATH       translation unit name\n"
	"-fplugin-arg-pgopt-rules=LIST    policy rules that matched (file:line,...)\n"
	"-fplugin-arg-pgopt-added=FLAGS   flags the wrapper added\n"
	"-fplugin-arg-pgopt-removed=FLAGS flags the wrapper removed\n"
	"-fplugin-arg-pgopt-log=DIR       also write DIR/functions/<tu>.jsonl\n"
	"-fplugin-arg-pgopt-hot=FILE      mark listed functions hot\n"
	"-fplugin-arg-pgopt-cold=FILE     mark listed functions cold\n"
	"-fplugin-arg-pgopt-list-digest=HEX  digest of the hot/cold lists\n"
	"-fplugin-arg-pgopt-verbose       report actions as notes\n",
};

#define PGOPT_SECTION ".pgopt.log"

/* ------------------------------------------------------------------ */
/* options                                                             */

static const char *opt_tu;      /* -fplugin-arg-pgopt-tu */
static const char *opt_rules;   /* comma separated file:line list */
static const char *opt_added;   /* space separated flags */
static const char *opt_removed; /* space separated flags */
static const char *opt_log;     /* sidecar directory */
static const char *opt_hot;     /* hot list file */
static const char *opt_cold;    /* cold list file */
static const char *opt_list_digest; /* hex digest of the lists, or NULL */
static bool opt_verbose;        /* print notes */
static const char *gcc_basever; /* version of the GCC that loaded us */

/* ------------------------------------------------------------------ */
/* a growable string (GCC poisons malloc; libiberty's xrealloc is fine) */

struct sbuf {
	char *buf;   /* NUL-terminated when len > 0 or alloc > 0 */
	size_t len;  /* bytes used */
	size_t alloc;/* bytes allocated */
};

static void sb_grow(struct sbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 > sb->alloc) {
		size_t n = sb->alloc ? sb->alloc * 2 : 256;
		while (n < sb->len + extra + 1)
			n *= 2;
		sb->buf = (char *)xrealloc(sb->buf, n);
		sb->alloc = n;
	}
}

static void sb_add(struct sbuf *sb, const char *s, size_t n)
{
	sb_grow(sb, n);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

static void sb_str(struct sbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

static void sb_ch(struct sbuf *sb, char c)
{
	sb_add(sb, &c, 1);
}

static void sb_int(struct sbuf *sb, long v)
{
	char tmp[32];
	snprintf(tmp, sizeof(tmp), "%ld", v);
	sb_str(sb, tmp);
}

static void sb_free(struct sbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

/* Append s as a JSON string (RFC 8259 escapes; NULL becomes null). */
static void sb_json(struct sbuf *sb, const char *s)
{
	if (!s) {
		sb_str(sb, "null");
		return;
	}
	sb_ch(sb, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			sb_ch(sb, '\\');
			sb_ch(sb, (char)c);
		} else if (c == '\n') {
			sb_str(sb, "\\n");
		} else if (c == '\t') {
			sb_str(sb, "\\t");
		} else if (c < 0x20) {
			char tmp[8];
			snprintf(tmp, sizeof(tmp), "\\u%04x", c);
			sb_str(sb, tmp);
		} else {
			sb_ch(sb, (char)c);
		}
	}
	sb_ch(sb, '"');
}

/* ,"key": */
static void sb_key(struct sbuf *sb, const char *key)
{
	sb_ch(sb, ',');
	sb_json(sb, key);
	sb_ch(sb, ':');
}

/* A JSON array of the words of s split at any character of seps. */
/*
 * The compile's own path maps (-ffile-prefix-map=OLD=NEW,
 * -fdebug-prefix-map=, -fmacro-prefix-map=; Debian's dpkg-buildflags
 * passes -ffile-prefix-map=BUILDPATH=.): every path the record holds is
 * mapped as GCC maps the debug information, so two builds of one source
 * in different directories record the same.  The last map given wins,
 * as in GCC.
 */
struct pgopt_map {
	const char *from, *to;
	size_t len;
};
static struct pgopt_map *path_maps;
static int n_path_maps = -1;

static bool is_prefix_map(const char *t)
{
	return !strncmp(t, "-ffile-prefix-map=", 18) || !strncmp(t, "-fdebug-prefix-map=", 19) ||
	       !strncmp(t, "-fmacro-prefix-map=", 19);
}

static void load_path_maps(void)
{
	if (n_path_maps >= 0)
		return;
	n_path_maps = 0;
	path_maps = XNEWVEC(struct pgopt_map, save_decoded_options_count + 1);
	for (unsigned int i = 1; i < save_decoded_options_count; i++) {
		const char *t = save_decoded_options[i].orig_option_with_args_text;
		const char *v, *eq;
		if (!t || !is_prefix_map(t))
			continue;
		v = strchr(t, '=') + 1;
		eq = strchr(v, '=');
		if (!eq || eq == v)
			continue;
		path_maps[n_path_maps].from = xstrndup(v, eq - v);
		path_maps[n_path_maps].len = eq - v;
		path_maps[n_path_maps].to = eq + 1;
		n_path_maps++;
	}
}

/* S with every occurrence of a mapped prefix replaced (new memory, or S). */
static const char *mapped(const char *s)
{
	struct sbuf out = { NULL, 0, 0 };
	load_path_maps();
	if (!s || !n_path_maps)
		return s;
	for (const char *p = s; *p;) {
		int hit = -1;
		for (int k = n_path_maps - 1; k >= 0 && hit < 0; k--)
			if (!strncmp(p, path_maps[k].from, path_maps[k].len))
				hit = k;
		if (hit < 0) {
			sb_ch(&out, *p++);
			continue;
		}
		sb_str(&out, path_maps[hit].to);
		p += path_maps[hit].len;
	}
	return out.buf ? out.buf : s;
}

static void sb_json_words(struct sbuf *sb, const char *s, const char *seps)
{
	bool first = true;
	sb_ch(sb, '[');
	while (s && *s) {
		size_t n = strcspn(s, seps);
		if (n) {
			char *w = xstrndup(s, n);
			if (!first)
				sb_ch(sb, ',');
			sb_json(sb, w);
			free(w);
			first = false;
		}
		s += n;
		if (*s)
			s++;
	}
	sb_ch(sb, ']');
}

/* ------------------------------------------------------------------ */
/* per-function state                                                  */

/* One inlined call site. Strings point into GCC's identifier and line-map
 * tables, which live as long as the compilation. */
struct pgopt_site {
	const char *callee;  /* name of the inlined function */
	const char *callee_file; /* file the callee is defined in */
	const char *file;    /* file of the call statement */
	int line, col;       /* its line and column */
	const char **chain;  /* functions the call sits in, outermost first */
	int nchain;          /* entries in chain */
	const char *stage;   /* "early", "ipa" or "lto" */
};

struct pgopt_sites {
	struct pgopt_site *v; /* the sites */
	int nr, alloc;        /* used, allocated */
};

/* What we know about one function (keyed by DECL_UID). */
struct pgopt_fn {
	int uid;                  /* DECL_UID of the function */
	struct pgopt_sites early; /* inlined while early-optimizing its body */
	struct pgopt_sites all;   /* every site inlined into this function */
	int size_early;           /* estimated size after early opts, -1 unknown */
	const char *marked;       /* "hot"/"cold" if this plugin marked it */
	char *calls;              /* JSON array of calls left alone, or NULL */
	char *partial;            /* its record without the section, or NULL */
	const char *name;         /* assembler name, once it inlined something */
	const char *file;         /* its source file */
	int line;                 /* and line */
	bool emitted;             /* a record for its final body was written */
	bool composed;            /* its early inlines were copied into a caller */
};

static struct pgopt_fn *fns;     /* all functions seen */
static int nfns, afns;           /* used, allocated */
static hash_map<int_hash<int, -1, -2>, int> *fn_index; /* uid -> fns[] */

static struct sbuf out_lines;    /* finished "fn" lines */
static int out_count;            /* number of "fn" lines */
static int n_marked_hot, n_marked_cold; /* functions this plugin marked */

static struct pgopt_fn *fn_get(tree decl)
{
	int uid = DECL_UID(decl);
	int *slot = fn_index->get(uid);
	if (slot)
		return &fns[*slot];
	if (nfns == afns) {
		afns = afns ? afns * 2 : 64;
		fns = (struct pgopt_fn *)xrealloc(fns, afns * sizeof(*fns));
	}
	memset(&fns[nfns], 0, sizeof(fns[nfns]));
	fns[nfns].uid = uid;
	fns[nfns].size_early = -1;
	fn_index->put(uid, nfns);
	return &fns[nfns++];
}

static void sites_push(struct pgopt_sites *s, const struct pgopt_site *site)
{
	if (s->nr == s->alloc) {
		s->alloc = s->alloc ? s->alloc * 2 : 8;
		s->v = (struct pgopt_site *)xrealloc(s->v, s->alloc * sizeof(*s->v));
	}
	s->v[s->nr++] = *site;
}

/* The decl a clone (constprop, isra, part, inline body copy) came from. */
static tree origin_decl(tree decl)
{
	tree o = decl;
	while (DECL_ABSTRACT_ORIGIN(o) && DECL_ABSTRACT_ORIGIN(o) != o &&
	       TREE_CODE(DECL_ABSTRACT_ORIGIN(o)) == FUNCTION_DECL)
		o = DECL_ABSTRACT_ORIGIN(o);
	return o;
}

static const char *decl_name(tree decl)
{
	if (DECL_NAME(decl))
		return IDENTIFIER_POINTER(DECL_NAME(decl));
	return "<anonymous>";
}

static const char *asm_name(tree decl)
{
	return IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(decl));
}

/* ------------------------------------------------------------------ */
/* hot / cold lists                                                    */

static hash_set<nofree_string_hash> *hot_names, *cold_names;

/* The most a list may hold: pgoptcc's limit for every file it reads
 * (SFS_READ_LIMIT), so that a list pgoptcc accepted is never refused here. */
#define PGOPT_LIST_LIMIT ((long)16 << 20)

/*
 * Read a hot/cold list: only a regular file of at most PGOPT_LIST_LIMIT
 * bytes, never through a symbolic link (the rules of pgoptcc's bounded
 * reader, wrapper/common/safefs.h).  It is opened O_NONBLOCK, so a FIFO put there returns at once
 * (and is refused) instead of hanging every compile; a device such as
 * /dev/zero is refused before a byte is read.
 */
static void read_list(const char *path, const char *key,
		      hash_set<nofree_string_hash> **set)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	FILE *fp;
	char line[4096];
	long total = 0;

	if (fd < 0) {
		error("pgopt: %<-fplugin-arg-pgopt-%s=%s%>: cannot open: %s",
		      key, path, xstrerror(errno));
		return;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		error("pgopt: %<-fplugin-arg-pgopt-%s=%s%>: expected a regular file",
		      key, path);
		close(fd);
		return;
	}
	if (st.st_size > PGOPT_LIST_LIMIT || !(fp = fdopen(fd, "r"))) {
		error("pgopt: %<-fplugin-arg-pgopt-%s=%s%>: %s", key, path,
		      st.st_size > PGOPT_LIST_LIMIT ? "larger than 16 MiB" : xstrerror(errno));
		close(fd);
		return;
	}
	*set = new hash_set<nofree_string_hash>;
	while (fgets(line, sizeof(line), fp)) {
		char *s = line, *e;
		char *hash = strchr(s, '#');
		total += (long)strlen(line);
		if (total > PGOPT_LIST_LIMIT) {
			/* it grew while read */
			error("pgopt: %<-fplugin-arg-pgopt-%s=%s%>: larger than 16 MiB", key, path);
			break;
		}
		if (hash)
			*hash = '\0';
		while (ISSPACE(*s))
			s++;
		e = s + strlen(s);
		while (e > s && ISSPACE(e[-1]))
			*--e = '\0';
		if (*s)
			(*set)->add(xstrdup(s));
	}
	fclose(fp);
}

/* Add the hot/cold attribute if the lists name this function. */
static void mark_function(tree decl)
{
	const char *name, *want = NULL, *other;
	struct pgopt_fn *fn;
	if (!decl || TREE_CODE(decl) != FUNCTION_DECL || !DECL_NAME(decl))
		return;
	name = decl_name(decl);
	if (hot_names && hot_names->contains(name))
		want = "hot";
	else if (cold_names && cold_names->contains(name))
		want = "cold";
	if (!want)
		return;
	other = want[0] == 'h' ? "cold" : "hot";
	if (lookup_attribute(other, DECL_ATTRIBUTES(decl))) {
		if (opt_verbose)
			inform(DECL_SOURCE_LOCATION(decl),
			       "pgopt: %qs is declared %s; not marking it %s",
			       name, other, want);
		return;
	}
	fn = fn_get(decl);
	if (fn->marked)
		return;
	fn->marked = want;
	if (want[0] == 'h')
		n_marked_hot++;
	else
		n_marked_cold++;
	if (!lookup_attribute(want, DECL_ATTRIBUTES(decl)))
		DECL_ATTRIBUTES(decl) = tree_cons(get_identifier(want), NULL_TREE,
						  DECL_ATTRIBUTES(decl));
	if (opt_verbose)
		inform(DECL_SOURCE_LOCATION(decl), "pgopt: marked %qs %s",
		       name, want);
}

/* C front end: a function definition has been parsed (its own attributes
 * are applied by then, so a declared "cold" is seen and respected). */
static void on_decl(void *gcc_data, void *user_data)
{
	mark_function((tree)gcc_data);
}

/* IPA start (also in lto1): mark what the front end did not see, and set
 * the call-graph frequency, which decides .text.hot/.text.unlikely. */
static void on_ipa_start(void *gcc_data, void *user_data)
{
	cgraph_node *node;
	if (!hot_names && !cold_names)
		return;
	FOR_EACH_FUNCTION(node) {
		struct pgopt_fn *fn;
		mark_function(node->decl);
		fn = fn_index->get(DECL_UID(node->decl)) ?
			fn_get(node->decl) : NULL;
		if (!fn || !fn->marked || !in_lto_p)
			continue;
		node->frequency = fn->marked[0] == 'h' ?
			NODE_FREQUENCY_HOT : NODE_FREQUENCY_UNLIKELY_EXECUTED;
	}
}

/* ------------------------------------------------------------------ */
/* inlining events                                                     */

/* Functions the statement at loc was inlined from, outermost first. */
static int inline_chain(location_t loc, const char ***out)
{
	const char *tmp[64];
	int n = 0;
	tree b = LOCATION_BLOCK(loc);
	while (b && TREE_CODE(b) == BLOCK && n < 64) {
		if (inlined_function_outer_scope_p(b)) {
			tree o = block_ultimate_origin(b);
			if (o && TREE_CODE(o) == FUNCTION_DECL)
				tmp[n++] = decl_name(o);
		}
		b = BLOCK_SUPERCONTEXT(b);
	}
	*out = NULL;
	if (!n)
		return 0;
	*out = (const char **)xmalloc(n * sizeof(**out));
	for (int i = 0; i < n; i++)
		(*out)[i] = tmp[n - 1 - i];
	return n;
}

static const char *current_stage_of_inlining(void)
{
	if (current_pass && current_pass->name &&
	    !strcmp(current_pass->name, "einline"))
		return "early";
	return in_lto_p ? "lto" : "ipa";
}

/*
 * Called whenever a call-graph node goes away.  An inline clone that is
 * removed while its caller's body is current has just been expanded into
 * it: that is one applied inlining decision.
 */
static void on_node_removal(cgraph_node *node, void *data)
{
	cgraph_edge *e;
	cgraph_node *to = pgopt_inlined_to(node);
	struct pgopt_site site;
	struct pgopt_fn *fn, *callee_fn;
	expanded_location xl;
	int *slot;
	if (!to || !cfun || current_function_decl != to->decl)
		return;
	e = node->callers;
	if (!e || !e->call_stmt)
		return;
	xl = expand_location(gimple_location(e->call_stmt));
	memset(&site, 0, sizeof(site));
	site.callee = node->name();
	site.callee_file = DECL_SOURCE_FILE(origin_decl(node->decl));
	site.file = xl.file;
	site.line = xl.line;
	site.col = xl.column;
	site.stage = current_stage_of_inlining();
	site.nchain = inline_chain(gimple_location(e->call_stmt), &site.chain);

	fn = fn_get(to->decl);
	if (!fn->name) {
		fn->name = asm_name(to->decl);
		fn->file = DECL_SOURCE_FILE(origin_decl(to->decl));
		fn->line = DECL_SOURCE_LINE(origin_decl(to->decl));
	}
	sites_push(&fn->all, &site);
	if (!strcmp(site.stage, "early"))
		sites_push(&fn->early, &site);

	/* The body just copied carries what was inlined into it early. */
	slot = fn_index->get(DECL_UID(origin_decl(node->decl)));
	callee_fn = slot ? &fns[*slot] : NULL;
	if (!callee_fn || callee_fn == fn)
		return;
	callee_fn->composed = callee_fn->early.nr > 0;
	for (int i = 0; i < callee_fn->early.nr; i++) {
		const struct pgopt_site *in = &callee_fn->early.v[i];
		struct pgopt_site nested = *in;
		nested.nchain = site.nchain + 1 + in->nchain;
		nested.chain = (const char **)xmalloc(nested.nchain *
						      sizeof(*nested.chain));
		for (int k = 0; k < site.nchain; k++)
			nested.chain[k] = site.chain[k];
		nested.chain[site.nchain] = site.callee;
		for (int k = 0; k < in->nchain; k++)
			nested.chain[site.nchain + 1 + k] = in->chain[k];
		sites_push(&fn->all, &nested);
		if (!strcmp(site.stage, "early"))
			sites_push(&fn->early, &nested);
	}
}

/* ------------------------------------------------------------------ */
/* per-function record                                                 */

/* ,"O":..,"flags":[..],"params":{..} of an optimization option set. */
static void opt_json(struct sbuf *sb, struct cl_optimization *o)
{
	struct { const char *name; int on; } flags[] = {
		{ "inline-functions", o->x_flag_inline_functions },
		{ "inline-small-functions", o->x_flag_inline_small_functions },
		{ "inline-functions-called-once",
		  o->x_flag_inline_functions_called_once },
		{ "early-inlining", o->x_flag_early_inlining },
		{ "partial-inlining", o->x_flag_partial_inlining },
		{ "ipa-cp", o->x_flag_ipa_cp },
		{ "ipa-cp-clone", o->x_flag_ipa_cp_clone },
		{ "ipa-sra", o->x_flag_ipa_sra },
		{ "tree-loop-vectorize", o->x_flag_tree_loop_vectorize },
		{ "unroll-loops", o->x_flag_unroll_loops },
		{ "omit-frame-pointer", o->x_flag_omit_frame_pointer },
		{ "reorder-blocks-and-partition",
		  o->x_flag_reorder_blocks_and_partition },
	};
	bool first = true;
	sb_key(sb, "O");
	if (o->x_optimize_fast)
		sb_json(sb, "-Ofast");
	else if (o->x_optimize_debug)
		sb_json(sb, "-Og");
	else if (o->x_optimize_size)
		sb_json(sb, o->x_optimize_size == 2 ? "-Oz" : "-Os");
	else {
		char tmp[16];
		snprintf(tmp, sizeof(tmp), "-O%d", o->x_optimize);
		sb_json(sb, tmp);
	}
	sb_key(sb, "flags");
	sb_ch(sb, '[');
	for (size_t i = 0; i < ARRAY_SIZE(flags); i++) {
		if (!flags[i].on)
			continue;
		if (!first)
			sb_ch(sb, ',');
		sb_json(sb, flags[i].name);
		first = false;
	}
	sb_ch(sb, ']');
	sb_key(sb, "params");
	sb_str(sb, "{\"max-inline-insns-auto\":");
	sb_int(sb, o->x_param_max_inline_insns_auto);
	sb_str(sb, ",\"max-inline-insns-single\":");
	sb_int(sb, o->x_param_max_inline_insns_single);
	sb_str(sb, ",\"inline-unit-growth\":");
	sb_int(sb, o->x_param_inline_unit_growth);
	sb_ch(sb, '}');
}

static char *unit_opt; /* opt_json of the command line's options */

static const char *unit_opt_json(void)
{
	if (!unit_opt) {
		struct sbuf sb = { NULL, 0, 0 };
		opt_json(&sb, TREE_OPTIMIZATION(optimization_default_node));
		unit_opt = sb.buf;
	}
	return unit_opt;
}

/* A function's options, only where they differ from the unit's ("opt" of
 * the unit record): most functions inherit them, which keeps records small. */
static void add_opt_flags(struct sbuf *sb, tree decl)
{
	struct sbuf mine = { NULL, 0, 0 };
	opt_json(&mine, opts_for_fn(decl));
	if (strcmp(mine.buf, unit_opt_json()))
		sb_str(sb, mine.buf);
	sb_free(&mine);
}

static bool is_header(const char *path)
{
	size_t n = strlen(path);
	return n > 2 && path[n - 2] == '.' && path[n - 1] == 'h';
}

static void add_sites(struct sbuf *sb, const struct pgopt_sites *s,
		      const char *fn_file)
{
	sb_key(sb, "inlined");
	sb_ch(sb, '[');
	for (int i = 0; i < s->nr; i++) {
		const struct pgopt_site *site = &s->v[i];
		if (i)
			sb_ch(sb, ',');
		sb_str(sb, "{\"callee\":");
		sb_json(sb, site->callee);
		if (site->file && (!fn_file || strcmp(site->file, fn_file))) {
			sb_key(sb, "file");
			sb_json(sb, mapped(site->file));
		}
		/* where the callee lives matters for link-time (cross-object)
		 * inlining; header functions are in every object anyway */
		if (site->callee_file && !strcmp(site->stage, "lto") &&
		    !is_header(site->callee_file) &&
		    (!fn_file || strcmp(site->callee_file, fn_file))) {
			sb_key(sb, "callee_file");
			sb_json(sb, mapped(site->callee_file));
		}
		sb_key(sb, "line");
		sb_int(sb, site->line);
		sb_key(sb, "col");
		sb_int(sb, site->col);
		if (site->nchain) {
			sb_key(sb, "chain");
			sb_ch(sb, '[');
			for (int k = 0; k < site->nchain; k++) {
				if (k)
					sb_ch(sb, ',');
				sb_json(sb, site->chain[k]);
			}
			sb_ch(sb, ']');
		}
		sb_key(sb, "stage");
		sb_json(sb, site->stage);
		sb_ch(sb, '}');
	}
	sb_ch(sb, ']');
}

/* Calls that stay calls, grouped by callee and reason. */
struct refusal {
	const char *callee; /* callee name */
	const char *reason; /* GCC's cgraph_inline_failed_string */
	int count;          /* call sites */
	int line;           /* line of the first call site */
};

static void not_inlined_json(struct sbuf *sb, cgraph_node *node)
{
	struct refusal *v = NULL;
	int nr = 0, alloc = 0;
	for (cgraph_edge *e = node->callees; e; e = e->next_callee) {
		const char *callee, *reason;
		int i;
		if (e->inline_failed == CIF_OK)
			continue;
		/* builtins are not calls GCC could inline: leave them out of
		 * the refusals (they would crowd the refusal tables) */
		if (e->callee && pgopt_builtin_p(e->callee->decl))
			continue;
		callee = e->callee ? e->callee->name() : "?";
		reason = cgraph_inline_failed_string(e->inline_failed);
		for (i = 0; i < nr; i++)
			if (!strcmp(v[i].callee, callee) &&
			    !strcmp(v[i].reason, reason))
				break;
		if (i == nr) {
			if (nr == alloc) {
				alloc = alloc ? alloc * 2 : 8;
				v = (struct refusal *)xrealloc(v, alloc * sizeof(*v));
			}
			v[nr].callee = callee;
			v[nr].reason = reason;
			v[nr].count = 0;
			v[nr].line = e->call_stmt ?
				LOCATION_LINE(gimple_location(e->call_stmt)) : 0;
			nr++;
		}
		v[i].count++;
	}
	sb_ch(sb, '[');
	/* edges are kept newest first; print in source order */
	for (int i = nr - 1; i >= 0; i--) {
		sb_str(sb, "{\"callee\":");
		sb_json(sb, v[i].callee);
		sb_key(sb, "reason");
		sb_json(sb, v[i].reason);
		sb_key(sb, "count");
		sb_int(sb, v[i].count);
		sb_key(sb, "line");
		sb_int(sb, v[i].line);
		sb_ch(sb, '}');
		if (i)
			sb_ch(sb, ',');
	}
	sb_ch(sb, ']');
	free(v);
}

static const char *clone_kind(const char *asmname)
{
	static const char *const kinds[] = { ".constprop", ".isra", ".part",
					     ".cold", ".lto_priv" };
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (strstr(asmname, kinds[i]))
			return kinds[i] + 1;
	return NULL;
}

/* Attributes and call-graph frequency; an empty list and "normal" are the
 * defaults and left out. */
static void add_attributes(struct sbuf *sb, tree decl, cgraph_node *node)
{
	static const char *const attrs[] = { "hot", "cold", "noinline",
					     "always_inline", "flatten",
					     "noipa", "noclone" };
	struct sbuf list = { NULL, 0, 0 };
	const char *freq = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(attrs); i++) {
		if (!lookup_attribute(attrs[i], DECL_ATTRIBUTES(decl)))
			continue;
		sb_ch(&list, list.len ? ',' : '[');
		sb_json(&list, attrs[i]);
	}
	if (DECL_DECLARED_INLINE_P(decl)) {
		sb_ch(&list, list.len ? ',' : '[');
		sb_json(&list, "inline");
	}
	if (list.len) {
		sb_ch(&list, ']');
		sb_key(sb, "attributes");
		sb_str(sb, list.buf);
	}
	sb_free(&list);
	switch (node ? node->frequency : NODE_FREQUENCY_NORMAL) {
	case NODE_FREQUENCY_UNLIKELY_EXECUTED:
		freq = "unlikely";
		break;
	case NODE_FREQUENCY_EXECUTED_ONCE:
		freq = "once";
		break;
	case NODE_FREQUENCY_HOT:
		freq = "hot";
		break;
	default:
		break;
	}
	if (freq) {
		sb_key(sb, "frequency");
		sb_json(sb, freq);
	}
}

static int body_size(tree decl)
{
	function *f = DECL_STRUCT_FUNCTION(decl);
	basic_block bb;
	int size = 0;
	if (!f || !f->cfg)
		return -1;
	FOR_EACH_BB_FN(bb, f)
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi);
		     gsi_next(&gsi))
			size += estimate_num_insns(gsi_stmt(gsi), &eni_size_weights);
	return size;
}

/*
 * The record of one function, without its closing brace and section (the
 * section is only known after final).  with_calls: include the calls left
 * alone (not at -flto compile time, where the real decision comes later).
 */
static char *function_record(cgraph_node *node, bool with_calls)
{
	tree decl = node->decl, orig = origin_decl(decl);
	struct pgopt_fn *fn = fn_get(decl);
	struct pgopt_sites sites = { NULL, 0, 0 };
	struct sbuf sb = { NULL, 0, 0 };
	const char *name = asm_name(decl), *kind = clone_kind(name);
	const char *file = DECL_SOURCE_FILE(orig);
	int size = body_size(decl);

	fn->emitted = true;
	sb_str(&sb, "{\"kind\":\"fn\",\"name\":");
	sb_json(&sb, name);
	if (strcmp(name, decl_name(orig))) {
		sb_key(&sb, "source_name");
		sb_json(&sb, decl_name(orig));
	}
	sb_key(&sb, "file");
	sb_json(&sb, mapped(file));
	sb_key(&sb, "line");
	sb_int(&sb, DECL_SOURCE_LINE(orig));
	add_opt_flags(&sb, decl);
	sb_key(&sb, "size");
	sb_int(&sb, size);
	if (fn->size_early < 0 && orig != decl) {
		int *slot = fn_index->get(DECL_UID(orig));
		if (slot)
			fn->size_early = fns[*slot].size_early;
	}
	if (fn->size_early >= 0) {
		sb_key(&sb, "size_early");
		sb_int(&sb, fn->size_early);
	}

	/* everything inlined into this body; a clone also carries what was
	 * inlined early into the body it was copied from */
	for (int i = 0; i < fn->all.nr; i++)
		sites_push(&sites, &fn->all.v[i]);
	if (orig != decl) {
		int *slot = fn_index->get(DECL_UID(orig));
		if (slot)
			for (int i = 0; i < fns[*slot].early.nr; i++)
				sites_push(&sites, &fns[*slot].early.v[i]);
	}
	add_sites(&sb, &sites, file);
	free(sites.v);
	if (with_calls) {
		sb_key(&sb, "not_inlined");
		sb_str(&sb, fn->calls ? fn->calls : "[]");
	}
	if (kind && orig != decl) {
		sb_key(&sb, "clone_of");
		sb_json(&sb, asm_name(orig));
	} else if (kind && strcmp(kind, "lto_priv")) {
		sb_key(&sb, "clone_of");
		sb_json(&sb, decl_name(orig));
	}
	if (kind) {
		sb_key(&sb, "clone_kind");
		sb_json(&sb, kind);
	}
	add_attributes(&sb, decl, node);
	if (fn->marked) {
		sb_key(&sb, "marked");
		sb_json(&sb, fn->marked);
	}
	return sb.buf;
}

/*
 * Functions whose body disappeared (inlined everywhere, or unreachable)
 * after GCC had inlined calls into it early, when no caller inherited those
 * sites: GCC made and reported those decisions, so the record keeps them.
 */
static void removed_records(void)
{
	for (int i = 0; i < nfns; i++) {
		struct pgopt_fn *fn = &fns[i];
		if (!fn->name || fn->emitted || fn->composed || !fn->early.nr)
			continue;
		sb_str(&out_lines, "{\"kind\":\"fn\",\"name\":");
		sb_json(&out_lines, fn->name);
		sb_key(&out_lines, "file");
		sb_json(&out_lines, mapped(fn->file));
		sb_key(&out_lines, "line");
		sb_int(&out_lines, fn->line);
		sb_str(&out_lines, ",\"emitted\":false");
		add_sites(&out_lines, &fn->early, fn->file);
		sb_str(&out_lines, "}\n");
		out_count++;
	}
}

static void finish_record(char *partial, const char *section)
{
	sb_str(&out_lines, partial);
	sb_key(&out_lines, "section");
	sb_json(&out_lines, section);
	sb_str(&out_lines, "}\n");
	out_count++;
}

/* ------------------------------------------------------------------ */
/* passes                                                              */

/* -ffat-lto-objects: the LTO IR (and its record) is written; cc1 goes on
 * with the normal IPA and RTL passes for the object's own code. */
static bool fat_code;
static struct sbuf fat_sidecar; /* its compile-lto record, for the sidecar */

/* Is this pass seeing only the LTO IR (before IPA), not code that is emitted? */
static bool lto_ir_only(void)
{
	return flag_generate_lto && !fat_code;
}

/* Which kind of compiler run this is. */
static const char *stage_name(void)
{
	if (fat_code)
		return "compile-fat";
	if (flag_wpa)
		return "wpa";
	if (flag_ltrans)
		return "ltrans";
	if (in_lto_p)
		return "lto";
	if (flag_generate_lto)
		return "compile-lto";
	return "compile";
}

static void emit_unit(struct sbuf *sb);
static void write_sidecar(const struct sbuf *text);

/* Small-IPA pass at the end of early optimization: sizes before IPA; at
 * -flto compile time also the whole record, as a top-level asm. */
static unsigned int sizes_execute(void)
{
	cgraph_node *node;
	FOR_EACH_DEFINED_FUNCTION(node) {
		if (!node->has_gimple_body_p() || pgopt_inlined_to(node))
			continue;
		fn_get(node->decl)->size_early = body_size(node->decl);
	}
	if (!flag_generate_lto || seen_error())
		return 0;

	FOR_EACH_DEFINED_FUNCTION(node) {
		char *partial;
		if (!node->has_gimple_body_p() || pgopt_inlined_to(node))
			continue;
		partial = function_record(node, false);
		finish_record(partial, NULL);
		free(partial);
	}
	removed_records();
	{
		struct sbuf text = { NULL, 0, 0 }, asm_text = { NULL, 0, 0 };
		emit_unit(&text);
		sb_str(&text, out_lines.buf ? out_lines.buf : "");
		if (flag_fat_lto_objects) /* the sidecar gets both records */
			sb_str(&fat_sidecar, text.buf);
		else
			write_sidecar(&text);
		sb_str(&asm_text, "\t.pushsection " PGOPT_SECTION ",\"\",@progbits\n");
		for (size_t i = 0; i < text.len;) {
			size_t n = text.len - i < 512 ? text.len - i : 512;
			sb_str(&asm_text, "\t.ascii \"");
			for (size_t k = 0; k < n; k++) {
				unsigned char c = (unsigned char)text.buf[i + k];
				if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7f) {
					char tmp[8];
					snprintf(tmp, sizeof(tmp), "\\%03o", c);
					sb_str(&asm_text, tmp);
				} else {
					sb_ch(&asm_text, (char)c);
				}
			}
			sb_str(&asm_text, "\"\n");
			i += n;
		}
		sb_str(&asm_text, "\t.popsection\n");
		symtab->finalize_toplevel_asm(build_string(asm_text.len + 1,
							   asm_text.buf));
		if (opt_verbose)
			inform(UNKNOWN_LOCATION,
			       "pgopt: %d function records streamed with the LTO IR",
			       out_count);
		sb_free(&text);
		sb_free(&asm_text);
		sb_free(&out_lines);
		out_count = 0;
	}
	/* fat object: record the fat code afresh, as a plain compile would */
	if (flag_fat_lto_objects) {
		fat_code = true;
		for (int i = 0; i < nfns; i++)
			fns[i].emitted = false;
	}
	return 0;
}

/* GIMPLE pass after "adjust_alignment", the last pass before the call
 * edges are dropped: the IPA transforms (inlining) are applied to this body,
 * and the calls left have GCC's reason for not inlining them. */
static unsigned int calls_execute(void)
{
	cgraph_node *node = cgraph_node::get(current_function_decl);
	struct pgopt_fn *fn;
	struct sbuf sb = { NULL, 0, 0 };
	if (!node || lto_ir_only())
		return 0;
	fn = fn_get(current_function_decl);
	not_inlined_json(&sb, node);
	free(fn->calls);
	fn->calls = sb.buf;
	return 0;
}

/* GIMPLE pass after "optimized": all inlining is done for this body. */
static unsigned int collect_execute(void)
{
	cgraph_node *node = cgraph_node::get(current_function_decl);
	struct pgopt_fn *fn;
	if (!node || lto_ir_only())
		return 0;
	fn = fn_get(current_function_decl);
	free(fn->partial);
	fn->partial = function_record(node, true);
	return 0;
}

static const char *section_name(section *s)
{
	if (!s)
		return NULL;
	if (SECTION_STYLE(s) == SECTION_NAMED)
		return s->named.name;
	return ".text";
}

/* RTL pass after "final": the function's text section is decided. */
static unsigned int section_execute(void)
{
	int *slot = fn_index->get(DECL_UID(current_function_decl));
	struct pgopt_fn *fn = slot ? &fns[*slot] : NULL;
	if (!fn || !fn->partial)
		return 0;
	finish_record(fn->partial, section_name(function_section(current_function_decl)));
	free(fn->partial);
	fn->partial = NULL;
	return 0;
}

/*
 * The passes: NAME_pass, of GCC's pass class BASE (pass type TYPE,
 * needing PROPS), runs NAME_execute(); -fdump-passes shows it as
 * "pgopt_NAME".  Where each one runs is set in plugin_init().
 */
#define PGOPT_PASS(NAME, BASE, TYPE, PROPS)					\
	static const pass_data NAME##_pass_data = {				\
		TYPE, "pgopt_" #NAME, OPTGROUP_NONE, TV_NONE,			\
		PROPS, 0, 0, 0, 0,						\
	};									\
	class NAME##_pass : public BASE {					\
	public:									\
		NAME##_pass(gcc::context *ctxt) : BASE(NAME##_pass_data, ctxt) {} \
		unsigned int execute(function *) final override		\
		{ return NAME##_execute(); }					\
	}

PGOPT_PASS(sizes, simple_ipa_opt_pass, SIMPLE_IPA_PASS, 0);
PGOPT_PASS(calls, gimple_opt_pass, GIMPLE_PASS, PROP_cfg);
PGOPT_PASS(collect, gimple_opt_pass, GIMPLE_PASS, PROP_cfg);
PGOPT_PASS(section, rtl_opt_pass, RTL_PASS, 0);

/* ------------------------------------------------------------------ */
/* the unit record and where it goes                                   */

/* The compile's own options, as GCC decoded them (minus plumbing). */
static void add_command_line(struct sbuf *sb)
{
	bool first = true;
	sb_key(sb, "cmdline");
	sb_ch(sb, '[');
	for (unsigned int i = 1; i < save_decoded_options_count; i++) {
		const struct cl_decoded_option *o = &save_decoded_options[i];
		const char *t = o->orig_option_with_args_text;
		if (!t || o->opt_index == OPT_SPECIAL_input_file ||
		    o->opt_index == OPT_o || !strncmp(t, "-dump", 5) ||
		    !strncmp(t, "-iplugindir", 11) ||
		    !strncmp(t, "-fplugin", 8) || !strcmp(t, "-quiet") ||
		    !strncmp(t, "-auxbase", 8) || !strncmp(t, "-imultiarch", 11) ||
		    !strncmp(t, "-fltrans-output-list", 20) ||
		    !strncmp(t, "-fresolution", 12) || is_prefix_map(t))
			continue;
		if (!first)
			sb_ch(sb, ',');
		sb_json(sb, mapped(t));
		first = false;
	}
	sb_ch(sb, ']');
}

static const char *unit_name(void)
{
	if (opt_tu)
		return opt_tu;
	return main_input_filename ? main_input_filename : "?";
}

/* Number of this LTO partition (from its file name "...ltransN.o"), or -1. */
static int ltrans_partition(void)
{
	const char *p = main_input_filename ? strstr(main_input_filename, "ltrans") : NULL;
	if (!flag_ltrans || !p)
		return -1;
	return atoi(p + 6);
}

static void emit_unit(struct sbuf *sb)
{
	sb_str(sb, "{\"pgopt\":1,\"kind\":\"unit\",\"tu\":");
	sb_json(sb, mapped(unit_name()));
	sb_key(sb, "stage");
	sb_json(sb, stage_name());
	if (ltrans_partition() >= 0) {
		sb_key(sb, "partition");
		sb_int(sb, ltrans_partition());
	}
	sb_key(sb, "src");
	/* an LTO partition's input is a temporary file of a random name
	 * (/tmp/ccXXXXXX.ltrans0.o): its "ltrans0.o" part only, so that two
	 * builds of one source record the same bytes */
	if (ltrans_partition() >= 0)
		sb_json(sb, strstr(main_input_filename, "ltrans"));
	else
		sb_json(sb, mapped(main_input_filename));
	sb_key(sb, "gcc");
	sb_json(sb, gcc_basever);
	sb_key(sb, "plugin");
	sb_json(sb, PGOPT_VERSION);
	sb_key(sb, "rules");
	sb_json_words(sb, mapped(opt_rules), ",");
	sb_key(sb, "added");
	sb_json_words(sb, opt_added, " \t");
	sb_key(sb, "removed");
	sb_json_words(sb, opt_removed, " \t");
	if (opt_list_digest) {
		sb_key(sb, "list_digest");
		sb_json(sb, opt_list_digest);
	}
	add_command_line(sb);
	sb_key(sb, "opt");
	sb_ch(sb, '{');
	sb_str(sb, unit_opt_json() + 1); /* skip the leading comma */
	sb_ch(sb, '}');
	sb_key(sb, "marked_hot");
	sb_int(sb, n_marked_hot);
	sb_key(sb, "marked_cold");
	sb_int(sb, n_marked_cold);
	sb_key(sb, "functions");
	sb_int(sb, out_count);
	sb_str(sb, "}\n");
}

/* mkdir -p path: the log directory, which its caller named (a path
 * followed as given, as pgoptcc takes it). */
static void mkdir_p(const char *path)
{
	struct sbuf p = { NULL, 0, 0 };
	sb_str(&p, path);
	for (char *s = p.buf + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(p.buf, 0755);
		*s = '/';
	}
	mkdir(p.buf, 0755);
	sb_free(&p);
}

/*
 * The directory rel (components separated by '/', made when missing) below
 * the descriptor dirfd, each component opened O_NOFOLLOW | O_DIRECTORY:
 * a symbolic link planted below the log directory (functions/, a unit's
 * directory) is refused, never followed.  A new descriptor, or -1.
 */
static int open_below(int dirfd, char *rel)
{
	int fd = dup(dirfd);
	for (char *p = rel; fd >= 0 && *p; ) {
		char *slash = strchr(p, '/');
		if (slash)
			*slash = '\0';
		if (*p) {
			int sub = -1;
			if (!mkdirat(fd, p, 0755) || errno == EEXIST)
				sub = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			int e = errno;
			close(fd);
			fd = sub;
			errno = e;
		}
		if (!slash)
			break;
		*slash = '/';
		p = slash + 1;
	}
	return fd;
}

/* DIR/functions/<tu>.jsonl (<tu>.ltransN.jsonl for a link partition). */
static void write_sidecar(const struct sbuf *text)
{
	struct sbuf path = { NULL, 0, 0 }, rel = { NULL, 0, 0 }, tmp = { NULL, 0, 0 };
	const char *tu = unit_name();
	FILE *fp;
	if (!opt_log)
		return;
	while (*tu == '/' || (tu[0] == '.' && tu[1] == '/'))
		tu += *tu == '/' ? 1 : 2;
	sb_str(&rel, "functions/");
	for (const char *p = tu; *p; p++)
		sb_ch(&rel, (p[0] == '.' && p[1] == '.') ? '_' : *p);
	if (ltrans_partition() >= 0) {
		sb_str(&rel, ".ltrans");
		sb_int(&rel, ltrans_partition());
	}
	sb_str(&rel, ".jsonl");
	sb_str(&path, opt_log);
	sb_ch(&path, '/');
	sb_str(&path, rel.buf);
	/* 0755/0644, never more whatever the umask: logs are not world-writable.
	 * Everything below the log directory (which pgoptcc checked, and
	 * names) is reached through descriptors, no link followed; the
	 * temporary file is a new one (O_EXCL): a name planted there is
	 * removed (unlinkat takes the link itself) and the file made again,
	 * then renamed over the record within the same directory. */
	char *last = strrchr(rel.buf, '/');
	*last++ = '\0';
	sb_str(&tmp, last);
	sb_str(&tmp, ".tmp.");
	sb_int(&tmp, (long)getpid());
	int fd = -1, dfd = -1, top = open(opt_log, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (top < 0 && errno == ENOENT) {
		mkdir_p(opt_log);
		top = open(opt_log, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (top >= 0) {
		dfd = open_below(top, rel.buf);
		close(top);
	}
	if (dfd >= 0) {
		fd = openat(dfd, tmp.buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno == EEXIST && unlinkat(dfd, tmp.buf, 0) == 0)
			fd = openat(dfd, tmp.buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	}
	if (fd < 0 || !(fp = fdopen(fd, "w"))) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		/* no source location: one line, not a quote of the last line */
		error_at(UNKNOWN_LOCATION, "pgopt: cannot write %qs: %s", path.buf,
			 xstrerror(e == ENOTDIR ? ELOOP : e));
	} else {
		bool bad = fwrite(text->buf, 1, text->len, fp) != text->len;
		bad |= fclose(fp) != 0;
		if (bad || renameat(dfd, tmp.buf, dfd, last)) {
			error_at(UNKNOWN_LOCATION, "pgopt: cannot write %qs: %s",
				 path.buf, xstrerror(errno));
			unlinkat(dfd, tmp.buf, 0);
		}
	}
	if (dfd >= 0)
		close(dfd);
	sb_free(&path);
	sb_free(&rel);
	sb_free(&tmp);
}

/* End of the unit: write the record into the assembler output. */
static void on_finish_unit(void *gcc_data, void *user_data)
{
	struct sbuf text = { NULL, 0, 0 };
	if (lto_ir_only() || flag_wpa || seen_error() ||
	    !asm_out_file)
		return;
	/* functions the RTL pass did not reach (should not happen) */
	for (int i = 0; i < nfns; i++)
		if (fns[i].partial) {
			finish_record(fns[i].partial, NULL);
			free(fns[i].partial);
			fns[i].partial = NULL;
		}
	removed_records();
	emit_unit(&text);
	sb_str(&text, out_lines.buf ? out_lines.buf : "");
	if (fat_code) {
		sb_str(&fat_sidecar, text.buf);
		write_sidecar(&fat_sidecar);
		sb_free(&fat_sidecar);
	} else {
		write_sidecar(&text);
	}

	fprintf(asm_out_file, "\t.pushsection " PGOPT_SECTION ",\"\",@progbits\n");
	for (size_t i = 0; i < text.len;) {
		size_t n = text.len - i < 512 ? text.len - i : 512;
		fputs("\t.ascii \"", asm_out_file);
		for (size_t k = 0; k < n; k++) {
			unsigned char c = (unsigned char)text.buf[i + k];
			if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7f)
				fprintf(asm_out_file, "\\%03o", c);
			else
				putc(c, asm_out_file);
		}
		fputs("\"\n", asm_out_file);
		i += n;
	}
	fprintf(asm_out_file, "\t.popsection\n");
	if (opt_verbose)
		inform(UNKNOWN_LOCATION, "pgopt: %d function records in %s (%s)",
		       out_count, PGOPT_SECTION, stage_name());
	sb_free(&text);
}

/* Start of the unit: the symbol table exists now. */
static void on_start_unit(void *gcc_data, void *user_data)
{
	symtab->add_cgraph_removal_hook(on_node_removal, NULL);
}

/* ------------------------------------------------------------------ */
/* plugin_init                                                         */

static bool need_value(const struct plugin_argument *arg)
{
	if (arg->value && *arg->value)
		return true;
	error("pgopt: option %<-fplugin-arg-pgopt-%s%> needs a value", arg->key);
	return false;
}

/* Decode %XX escapes in place (the value only ever gets shorter). */
static void arg_decode(char *s)
{
	char *out = s;
	for (; *s; s++) {
		if (s[0] == '%' && ISXDIGIT(s[1]) && ISXDIGIT(s[2])) {
			*out++ = (char)(hex_value(s[1]) * 16 + hex_value(s[2]));
			s += 2;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/* Insert pass after the first instance of GCC's pass named after (GCC
 * copies what it needs from the register_pass_info). */
static void register_pass_after(const char *plugin, opt_pass *pass, const char *after)
{
	struct register_pass_info pass_info;

	pass_info.pass = pass;
	pass_info.reference_pass_name = after;
	pass_info.ref_pass_instance_number = 1;
	pass_info.pos_op = PASS_POS_INSERT_AFTER;
	register_callback(plugin, PLUGIN_PASS_MANAGER_SETUP, NULL, &pass_info);
}

int plugin_init(struct plugin_name_args *info, struct plugin_gcc_version *version)
{
	struct plugin_gcc_version built = gcc_version;
#ifdef PGOPT_FAKE_BASEVER
	/* test build: pretend to be built for another GCC */
	built.basever = PGOPT_FAKE_BASEVER;
#endif

	if (!plugin_default_version_check(version, &built)) {
		/* one line, no crash; returning 0 keeps GCC from adding a
		 * second "fail to initialize plugin" line */
		error("pgopt: %s was built for GCC %s but this is GCC %s; "
		      "rebuild pgoptcc against this compiler",
		      info->full_name, built.basever, version->basever);
		return 0;
	}
	gcc_basever = version->basever;

	for (int i = 0; i < info->argc; i++) {
		const struct plugin_argument *arg = &info->argv[i];
		/* GCC's option parser drops a character for every '=' after the
		 * first, so pgoptcc percent-encodes '=' and '%' in values */
		if (arg->value)
			arg_decode(arg->value);
		if (!strcmp(arg->key, "tu")) {
			/* empty: the wrapper could not name it; use the input */
			opt_tu = arg->value && *arg->value ? arg->value : NULL;
		} else if (!strcmp(arg->key, "rules")) {
			opt_rules = arg->value;
		} else if (!strcmp(arg->key, "added")) {
			opt_added = arg->value;
		} else if (!strcmp(arg->key, "removed")) {
			opt_removed = arg->value;
		} else if (!strcmp(arg->key, "log")) {
			if (need_value(arg))
				opt_log = arg->value;
		} else if (!strcmp(arg->key, "hot")) {
			if (need_value(arg))
				opt_hot = arg->value;
		} else if (!strcmp(arg->key, "cold")) {
			if (need_value(arg))
				opt_cold = arg->value;
		} else if (!strcmp(arg->key, "list-digest")) {
			if (!need_value(arg))
				continue;
			if (arg->value[strspn(arg->value, "0123456789abcdefABCDEF")])
				error("pgopt: option %<-fplugin-arg-pgopt-list-digest=%s%>: "
				      "not a hexadecimal digest", arg->value);
			else
				opt_list_digest = arg->value;
		} else if (!strcmp(arg->key, "verbose")) {
			if (arg->value)
				error("pgopt: option %<-fplugin-arg-pgopt-verbose%> "
				      "takes no value");
			opt_verbose = true;
		} else {
			error("pgopt: unknown option %<-fplugin-arg-%s-%s%>",
			      info->base_name, arg->key);
		}
	}
	if (opt_hot)
		read_list(opt_hot, "hot", &hot_names);
	if (opt_cold)
		read_list(opt_cold, "cold", &cold_names);
	fn_index = new hash_map<int_hash<int, -1, -2>, int>;

	register_callback(info->base_name, PLUGIN_INFO, NULL, &pgopt_plugin_info);

	register_pass_after(info->base_name, new sizes_pass(g), "remove_symbols");
	register_pass_after(info->base_name, new calls_pass(g), "adjust_alignment");
	register_pass_after(info->base_name, new collect_pass(g), "optimized");
	register_pass_after(info->base_name, new section_pass(g), "final");

	register_callback(info->base_name, PLUGIN_START_UNIT, on_start_unit, NULL);
	if (hot_names || cold_names) {
		register_callback(info->base_name, PLUGIN_FINISH_PARSE_FUNCTION,
				  on_decl, NULL);
		register_callback(info->base_name, PLUGIN_ALL_IPA_PASSES_START,
				  on_ipa_start, NULL);
	}
	register_callback(info->base_name, PLUGIN_FINISH_UNIT, on_finish_unit, NULL);
	return 0;
}
