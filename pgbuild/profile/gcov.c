/*
 * gcov.c - the counts of a GCC profile per function; see gcov.h.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/pgbuild.h"
#include "pgbuild/profile/gcov.h"

#define GCOV_DATA_MAGIC  0x67636461u /* "gcda" */
#define GCOV_NOTE_MAGIC  0x67636e6fu /* "gcno" */
#define GCOV_TAG_FUNCTION 0x01000000u
#define GCOV_TAG_ARCS     0x01a10000u

/* A cursor over a file's bytes. */
struct cur {
	const unsigned char *p, *end;
	const char *name;
	struct strbuf *err;
};

static int fail(struct cur *c, const char *what)
{
	strbuf_addf(c->err, "%s: %s", c->name, what);
	return -1;
}

static int word(struct cur *c, uint32_t *w)
{
	if (c->end - c->p < 4)
		return fail(c, "expected a 4-byte word, found the end of the file");
	memcpy(w, c->p, 4);
	c->p += 4;
	return 0;
}

/* A string: a length word (bytes including the NUL), then the bytes. */
static int string(struct cur *c, const char **s, uint32_t *len)
{
	if (word(c, len) < 0)
		return -1;
	if ((size_t)(c->end - c->p) < *len)
		return fail(c, "expected a string, found the end of the file");
	*s = (const char *)c->p;
	c->p += *len;
	return 0;
}

static struct gcov_function *add(struct gcov_unit *u, uint32_t ident, uint32_t cfg)
{
	if (u->nr == u->alloc) {
		u->alloc = u->alloc ? 2 * u->alloc : 64;
		u->v = xrealloc(u->v, u->alloc * sizeof(*u->v));
	}
	memset(&u->v[u->nr], 0, sizeof(u->v[0]));
	u->v[u->nr].ident = ident;
	u->v[u->nr].cfg_checksum = cfg;
	return &u->v[u->nr++];
}

static struct gcov_function *find(struct gcov_unit *u, uint32_t ident)
{
	for (size_t i = 0; i < u->nr; i++)
		if (u->v[i].ident == ident)
			return &u->v[i];
	return NULL;
}

/* The header: magic, version, stamp, checksum. */
static int header(struct cur *c, uint32_t magic, const char *kind)
{
	uint32_t w[4];
	for (int i = 0; i < 4; i++)
		if (word(c, &w[i]) < 0)
			return -1;
	if (w[0] != magic) {
		strbuf_addf(c->err, "%s: not a GCC %s file (magic %08x)", c->name, kind, w[0]);
		return -1;
	}
	return 0;
}

int gcov_parse_gcda(const unsigned char *buf, size_t len, const char *name, struct gcov_unit *u,
		    struct strbuf *err)
{
	struct cur c = { buf, buf + len, name, err };
	struct gcov_function *fn = NULL;

	if (header(&c, GCOV_DATA_MAGIC, ".gcda") < 0)
		return -1;
	while (c.p < c.end) {
		uint32_t tag, ulen;
		int32_t rlen;
		if (word(&c, &tag) < 0)
			return -1;
		if (!tag)
			break;  /* the end marker */
		if (word(&c, &ulen) < 0)
			return -1;
		rlen = (int32_t)ulen;
		if (rlen < 0) {
			/* counters that are all zero: nothing stored */
			continue;
		}
		if ((size_t)(c.end - c.p) < (size_t)rlen)
			return fail(&c, "expected a record's data, found the end of the file");
		if (tag == GCOV_TAG_FUNCTION && rlen >= 12) {
			uint32_t ident, lineno, cfg;
			memcpy(&ident, c.p, 4);
			memcpy(&lineno, c.p + 4, 4);
			memcpy(&cfg, c.p + 8, 4);
			fn = add(u, ident, cfg);
		} else if (tag == GCOV_TAG_FUNCTION) {
			fn = NULL;  /* a function with no data */
		} else if (tag == GCOV_TAG_ARCS) {
			if (!fn || rlen % 8)
				return fail(&c, "expected arc counters after a function record");
			for (int32_t i = 0; i < rlen; i += 8) {
				uint32_t lo, hi;
				memcpy(&lo, c.p + i, 4);
				memcpy(&hi, c.p + i + 4, 4);
				fn->arcs += (uint64_t)hi << 32 | lo;
			}
			u->arcs += fn->arcs;
		}
		c.p += rlen;
	}
	return 0;
}

int gcov_parse_gcno(const unsigned char *buf, size_t len, const char *name, struct gcov_unit *u,
		    struct strbuf *err)
{
	struct cur c = { buf, buf + len, name, err };
	const char *s;
	uint32_t slen, flag;

	if (header(&c, GCOV_NOTE_MAGIC, ".gcno") < 0 || string(&c, &s, &slen) < 0 ||
	    word(&c, &flag) < 0)
		return -1;
	while (c.p < c.end) {
		uint32_t tag, rlen;
		if (word(&c, &tag) < 0)
			return -1;
		if (!tag)
			break;  /* the end marker */
		if (word(&c, &rlen) < 0)
			return -1;
		if ((size_t)(c.end - c.p) < rlen)
			return fail(&c, "expected a record's data, found the end of the file");
		if (tag == GCOV_TAG_FUNCTION) {
			struct cur r = { c.p, c.p + rlen, name, err };
			uint32_t ident, lineno, cfg;
			if (word(&r, &ident) < 0 || word(&r, &lineno) < 0 || word(&r, &cfg) < 0 ||
			    string(&r, &s, &slen) < 0)
				return -1;
			if (!slen || s[slen - 1] != '\0')
				return fail(&c, "expected a function name ending in NUL");
			struct gcov_function *fn = find(u, ident);
			if (fn && !fn->name)
				fn->name = xstrdup(s);
		}
		c.p += rlen;
	}
	return 0;
}

/* Read path whole (the caller named it: links followed). */
static int slurp(const char *path, struct strbuf *out, struct strbuf *err)
{
	return sfs_read(AT_FDCWD, path, SFS_IN_COUNTS, 0, out, err) < 0 ? -1 : 0;
}

int gcov_read_unit(const char *gcda, const char *gcno, struct gcov_unit *u, struct strbuf *err)
{
	struct strbuf d = STRBUF_INIT;
	int r = slurp(gcda, &d, err);

	if (r == 0)
		r = gcov_parse_gcda((const unsigned char *)d.buf, d.len, gcda, u, err);
	if (r == 0 && gcno) {
		strbuf_setlen(&d, 0);
		r = slurp(gcno, &d, err);
		if (r == 0)
			r = gcov_parse_gcno((const unsigned char *)d.buf, d.len, gcno, u, err);
	}
	strbuf_release(&d);
	return r;
}

void gcov_unit_release(struct gcov_unit *u)
{
	for (size_t i = 0; i < u->nr; i++)
		free(u->v[i].name);
	free(u->v);
	memset(u, 0, sizeof(*u));
}
