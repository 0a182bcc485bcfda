/*
 * test-policy-edit.c - the policy editor (wrapper/policy/edit.c): every
 * example policy round-trips byte for byte and keeps everything but an
 * edit through load, edit, write and a fresh parse; edits go where edit.h
 * says, keep comments, and are refused with the parser's reason when they
 * would make the policy invalid.  Run from the top of the repository (as
 * make check-unit does): it reads the example policies in examples/.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <glob.h>

#include "wrapper/common/safefs.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/xalloc.h"
#include "wrapper/policy/edit.h"

/* A document of text named /p/x.policy; the test fails if it is invalid. */
static void doc(struct policy_doc *d, const char *text)
{
	struct strbuf err = STRBUF_INIT;
	if (policy_doc_parse(d, "/p/x.policy", text, strlen(text), 0, &err) < 0)
		fail_msg("does not parse: %s", err.buf);
	strbuf_release(&err);
}

/* The text of d, as a string to compare (static: valid until the next
 * call). */
static const char *text(const struct policy_doc *d)
{
	static struct strbuf sb = STRBUF_INIT;
	strbuf_reset(&sb);
	policy_doc_text(d, &sb);
	return sb.buf;
}

/* Two parses say the same: globals, sections, their ops; b has extra
 * sections (a new [global]) before a's. */
static void assert_same_policy(const struct policy *a, const struct policy *b, int skip_lto,
			       size_t extra)
{
	if (!skip_lto)
		assert_int_equal(a->lto, b->lto);
	assert_int_equal(a->bolt, b->bolt);
	assert_int_equal(a->plugin, b->plugin);
	assert_true((a->hot == NULL) == (b->hot == NULL));
	if (a->hot)
		assert_string_equal(a->hot, b->hot);
	assert_int_equal(a->nr_sections + extra, b->nr_sections);
	for (size_t i = 0; i < a->nr_sections; i++) {
		const struct policy_section *x = &a->sections[i], *y = &b->sections[i + extra];
		assert_string_equal(x->glob, y->glob);
		assert_int_equal(x->nr_ops, y->nr_ops);
		for (size_t j = 0; j < x->nr_ops; j++) {
			assert_string_equal(x->ops[j].flag, y->ops[j].flag);
			assert_int_equal(x->ops[j].add, y->ops[j].add);
			assert_int_equal(x->ops[j].link, y->ops[j].link);
		}
	}
}

static void read_file(const char *path, struct strbuf *sb)
{
	strbuf_reset(sb);
	assert_true(sfs_read(AT_FDCWD, path, SFS_IN_BINARY, 0, sb, NULL) >= 0);
}

/* What the examples need the caller to allow: no-pie.policy weakens pie. */
#define EXAMPLES_FLAGS POLICY_WEAKEN(1u << VOCAB_HARD_PIE)

/* Every example: load, write, the same bytes. */
static void test_examples_round_trip(void **state)
{
	glob_t g;
	(void)state;
	assert_int_equal(glob("examples/*.policy", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 5);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct policy_doc d;
		struct strbuf err = STRBUF_INIT, want = STRBUF_INIT, got = STRBUF_INIT;
		char out[] = "/tmp/test-policy-edit.XXXXXX";
		int fd = mkstemp(out);
		assert_true(fd >= 0);
		close(fd);
		/* (no-pie.policy weakens pie: as its caller allows) */
		assert_int_equal(policy_doc_load(&d, g.gl_pathv[i], EXAMPLES_FLAGS, &err), 0);
		assert_true(d.lines.nr > 0);
		assert_int_equal(policy_doc_write(&d, out), 0);
		read_file(g.gl_pathv[i], &want);
		read_file(out, &got);
		assert_string_equal(got.buf, want.buf);
		unlink(out);
		policy_doc_release(&d);
		strbuf_release(&err);
		strbuf_release(&want);
		strbuf_release(&got);
	}
	globfree(&g);
}

/* Load, edit, write, parse again: the edit is there, the rest the same,
 * every comment line of the original still in the text. */
static void check_edited(const char *path, const struct policy_doc *orig,
			 const struct strbuf *written)
{
	struct policy p;
	struct strbuf err = STRBUF_INIT;
	size_t extra;
	assert_int_equal(policy_parse_flags(&p, orig->path, written->buf, written->len,
					    EXAMPLES_FLAGS, &err), 0);
	assert_int_equal(p.lto, LTO_FAT);
	/* a policy without [global] gets one, first, holding the key alone */
	extra = policy_doc_section(orig, "global") < 0;
	if (extra) {
		assert_true(p.sections[0].global);
		assert_int_equal(p.sections[0].nr_ops, 0);
	}
	assert_same_policy(&orig->pol, &p, 1, extra);
	for (size_t i = 0; i < orig->lines.nr; i++)
		if (orig->lines.v[i][0] == '#' && !strstr(written->buf, orig->lines.v[i]))
			fail_msg("%s: comment line %zu lost", path, i + 1);
	policy_release(&p);
	strbuf_release(&err);
}

static void test_examples_edit(void **state)
{
	glob_t g;
	(void)state;
	assert_int_equal(glob("examples/*.policy", 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct policy_doc orig, d;
		struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;
		char out[] = "/tmp/test-policy-edit.XXXXXX";
		int fd = mkstemp(out);
		assert_true(fd >= 0);
		close(fd);
		assert_int_equal(policy_doc_load(&orig, g.gl_pathv[i], EXAMPLES_FLAGS, &err), 0);
		assert_int_equal(policy_doc_load(&d, g.gl_pathv[i], EXAMPLES_FLAGS, &err), 0);
		assert_int_equal(policy_doc_set(&d, "lto", "fat", &err), 0);
		assert_int_equal(policy_doc_write(&d, out), 0);
		read_file(out, &sb);
		check_edited(g.gl_pathv[i], &orig, &sb);
		/* one line more at most (a new key), two with a new [global] */
		assert_true(d.lines.nr <= orig.lines.nr + 2);
		unlink(out);
		policy_doc_release(&orig);
		policy_doc_release(&d);
		strbuf_release(&err);
		strbuf_release(&sb);
	}
	globfree(&g);
}

static void test_set(void **state)
{
	struct policy_doc d;
	struct strbuf err = STRBUF_INIT;
	char *v;
	(void)state;
	/* in place: indentation and comment kept */
	doc(&d, "# top\n[global]\n  lto = on   # link time\ncflags += -O2\n");
	assert_int_equal(policy_doc_set(&d, "lto", "fat", &err), 0);
	assert_string_equal(text(&d), "# top\n[global]\n  lto = fat   # link time\ncflags += -O2\n");
	assert_int_equal(d.pol.lto, LTO_FAT);
	v = policy_doc_value(&d, "lto");
	assert_string_equal(v, "fat");
	free(v);
	assert_null(policy_doc_value(&d, "bolt"));
	/* new keys: below the header and the key lines right after it */
	assert_int_equal(policy_doc_set(&d, "bolt", "ready", &err), 0);
	assert_int_equal(policy_doc_set(&d, "hot", "h.txt", &err), 0);
	assert_string_equal(text(&d), "# top\n[global]\n  lto = fat   # link time\nbolt = ready\n"
				      "hot = h.txt\ncflags += -O2\n");
	assert_string_equal(d.pol.hot, "/p/h.txt");
	assert_int_equal(d.pol.bolt_line, 4);
	policy_doc_release(&d);
	/* no [global]: it opens the file */
	doc(&d, "[src/backend/**]\ncflags += -O3\n");
	assert_int_equal(policy_doc_set(&d, "bolt", "ready", &err), 0);
	assert_string_equal(text(&d), "[global]\nbolt = ready\n[src/backend/**]\ncflags += -O3\n");
	policy_doc_release(&d);
	strbuf_release(&err);
}

static void test_unset(void **state)
{
	struct policy_doc d;
	struct strbuf err = STRBUF_INIT;
	(void)state;
	doc(&d, "[global]\nlto = on\nhot = h.txt\n");
	assert_int_equal(policy_doc_unset(&d, "lto", "(without LTO)", &err), 0);
	assert_string_equal(text(&d), "[global]\n# (without LTO) lto = on\nhot = h.txt\n");
	assert_int_equal(d.pol.lto, LTO_OFF);
	assert_int_equal(policy_doc_unset(&d, "hot", NULL, &err), 0);
	assert_string_equal(text(&d), "[global]\n# (without LTO) lto = on\n");
	assert_null(d.pol.hot);
	assert_int_equal(policy_doc_unset(&d, "cold", NULL, &err), 0);  /* not set */
	policy_doc_release(&d);
	strbuf_release(&err);
}

static void test_sections_and_flags(void **state)
{
	struct policy_doc d;
	struct strbuf err = STRBUF_INIT;
	int s;
	(void)state;
	/* a comment before the next header stays with it */
	doc(&d, "[global]\ncflags += -O2\n\n# the executor\n[src/backend/executor/*.c]\n");
	assert_int_equal(policy_doc_section(&d, "global"), 0);
	assert_int_equal(policy_doc_section(&d, "src/backend/executor/*.c"), 1);
	assert_int_equal(policy_doc_section(&d, "nope"), -1);
	assert_int_equal(policy_doc_add_flags(&d, 0, "ldflags", 1, "-Wl,-O1", &err), 0);
	assert_int_equal(policy_doc_add_flags(&d, 1, "cflags", 0, "-g", &err), 0);
	assert_string_equal(text(&d), "[global]\ncflags += -O2\nldflags += -Wl,-O1\n\n"
				      "# the executor\n[src/backend/executor/*.c]\ncflags -= -g\n");
	s = policy_doc_add_section(&d, "src/backend/utils/hash/dynahash.c", &err);
	assert_int_equal(s, 2);
	assert_int_equal(policy_doc_add_flags(&d, s, "cflags", 1, "-O3 -funroll-loops", &err), 0);
	assert_int_equal(d.pol.sections[2].nr_ops, 2);
	/* drop one word, then the last one: the line goes */
	assert_int_equal(policy_doc_drop_flag(&d, s, "cflags", "-O3", &err), 1);
	assert_string_equal(d.lines.v[d.lines.nr - 1], "cflags += -funroll-loops");
	assert_int_equal(policy_doc_drop_flag(&d, s, "cflags", "-O3", &err), 0);
	assert_int_equal(policy_doc_drop_flag(&d, s, "cflags", "-funroll-loops", &err), 1);
	assert_string_equal(d.lines.v[d.lines.nr - 1], "[src/backend/utils/hash/dynahash.c]");
	assert_int_equal(d.pol.sections[2].nr_ops, 0);
	/* a glob with a character class, "]" inside the header */
	assert_int_equal(policy_doc_add_section(&d, "src/port/*.[ch]", &err), 3);
	assert_string_equal(d.pol.sections[3].glob, "src/port/*.[ch]");
	policy_doc_release(&d);
	strbuf_release(&err);
}

/* Words that need quoting are written so the parser reads them back. */
static void test_drop_keeps_quoting(void **state)
{
	struct policy_doc d;
	struct strbuf err = STRBUF_INIT;
	(void)state;
	assert_int_equal(policy_doc_parse(&d, "/p/x.policy",
					  "[global]\ncflags += -O3 \"-DQ=a b\" # why\n",
					  strlen("[global]\ncflags += -O3 \"-DQ=a b\" # why\n"),
					  POLICY_UNCHECKED, &err), 0);
	assert_int_equal(policy_doc_drop_flag(&d, 0, "cflags", "-O3", &err), 1);
	assert_string_equal(d.lines.v[1], "cflags += \"-DQ=a b\" # why");
	assert_string_equal(d.pol.sections[0].ops[0].flag, "-DQ=a b");
	policy_doc_release(&d);
	strbuf_release(&err);
}

struct refusal {
	const char *text;   /* the policy */
	int edit;           /* 0 set, 1 add flags to section 0, 2 add section */
	const char *a, *b;  /* key and value, key and flags, glob */
	const char *error;  /* the reason */
};

static const struct refusal refusals[] = {
	{ "[global]\n", 0, "lto", "yes", "/p/x.policy:2: expected lto = on, off, fat or slim, got \"yes\"" },
	{ "[global]\n", 0, "bolt", "on", "/p/x.policy:2: expected bolt = ready or off, got \"on\"" },
	{ "[global]\n", 0, "march", "native",
	  "/p/x.policy: expected a [global] key (lto, bolt, hot, cold, plugin), got \"march\"" },
	{ "[global]\n", 0, "hot", "a\nb", "/p/x.policy: expected a value on one line, got \"a\nb\"" },
	{ "[global]\n", 0, "hot", "h.txt #x",
	  "/p/x.policy: expected a value without a comment ('#' after a blank), got \"h.txt #x\"" },
	{ "[global]\ncflags += -freorder-blocks-and-partition\n", 0, "bolt", "ready",
	  "/p/x.policy:3: cannot add -freorder-blocks-and-partition with bolt = ready (line 2): BOLT cannot rewrite the .cold parts it splits functions into" },
	{ "[global]\n", 1, "cflags", "-ffast-math",
	  "/p/x.policy:2: cannot add -ffast-math: it changes PostgreSQL's arithmetic or aliasing semantics" },
	{ "[global]\n", 1, "cflags", "-DX=1", NULL },  /* outside the vocabulary */
	{ "[a.c]\n", 1, "ldflags", "-Wl,-O1",
	  "/p/x.policy:2: expected ldflags only in [global] (links have no translation unit)" },
	{ "[global]\n", 1, "CFLAGS", "-O3", "/p/x.policy: expected cflags or ldflags, got \"CFLAGS\"" },
	{ "[global]\n", 2, "a.c]\ncflags += -ffast-math", NULL,
	  "/p/x.policy: expected a glob on one line, got \"a.c]\ncflags += -ffast-math\"" },
	{ "[global]\n", 2, "{a,b", NULL, NULL },
	{ "[global]\n", 2, " a.c", NULL,
	  "/p/x.policy: expected a glob without blanks around it, got \" a.c\"" },
};

static int apply(struct policy_doc *d, const struct refusal *r, struct strbuf *err)
{
	switch (r->edit) {
	case 0: return policy_doc_set(d, r->a, r->b, err);
	case 1: return policy_doc_add_flags(d, 0, r->a, 1, r->b, err);
	default: return policy_doc_add_section(d, r->a, err);
	}
}

static void test_refused(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		const struct refusal *r = &refusals[i];
		struct policy_doc d;
		struct strbuf err = STRBUF_INIT, before = STRBUF_INIT;
		doc(&d, r->text);
		policy_doc_text(&d, &before);
		assert_int_equal(apply(&d, r, &err), -1);
		if (r->error)
			assert_string_equal(err.buf, r->error);
		else
			assert_true(strstr(err.buf, "/p/x.policy:") == err.buf);
		/* the document is as it was */
		assert_string_equal(text(&d), before.buf);
		policy_doc_release(&d);
		strbuf_release(&err);
		strbuf_release(&before);
	}
}

/* A document built from nothing, as pgbuild tune writes one. */
static void test_from_nothing(void **state)
{
	struct policy_doc d;
	struct strbuf err = STRBUF_INIT;
	(void)state;
	policy_doc_init(&d, "/w/best.policy", 0);
	assert_string_equal(text(&d), "");
	policy_doc_add_comment(&d, "pgbuild tune: -O3\nsecond line");
	assert_int_equal(policy_doc_add_section(&d, "global", &err), 0);
	assert_int_equal(policy_doc_set(&d, "plugin", "off", &err), 0);
	assert_int_equal(policy_doc_set(&d, "lto", "on", &err), 0);
	assert_int_equal(policy_doc_add_flags(&d, 0, "cflags", 1, "-O3", &err), 0);
	policy_doc_add_comment(&d, "");
	assert_string_equal(text(&d), "# pgbuild tune: -O3\n# second line\n[global]\nplugin = off\n"
				      "lto = on\ncflags += -O3\n\n");
	assert_int_equal(d.pol.plugin, 0);
	policy_doc_release(&d);
	strbuf_release(&err);
}

/* What is kept byte for byte: a byte-order mark, no final newline, CRs. */
static void test_bytes_kept(void **state)
{
	static const char *const texts[] = {
		"\xEF\xBB\xBF[global]\nlto = on\n", "[global]\nlto = on", "[global]\r\nlto = on\r\n",
		"", "\n\n# only comments\n",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct policy_doc d;
		doc(&d, texts[i]);
		assert_string_equal(text(&d), texts[i]);
		policy_doc_release(&d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_examples_round_trip),
		cmocka_unit_test(test_examples_edit),
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_unset),
		cmocka_unit_test(test_sections_and_flags),
		cmocka_unit_test(test_drop_keeps_quoting),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_from_nothing),
		cmocka_unit_test(test_bytes_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
