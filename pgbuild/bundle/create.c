/*
 * create.c - `pgbuild bundle create`: pack a training's result (a PGO
 * build's .gcda files with their weights, the policy with its lists, a BOLT
 * profile) into a new bundle directory; see bundle.h.
 *
 * Where the pieces come from:
 *   --pgo PREFIX        a `pgbuild pgo` install: PREFIX/pgopt-pgo.json names
 *                       the build directory, whose pgo-use.policy is the
 *                       policy, pgopt-pgo.json the training, and whose
 *                       objects have their .gcda (and .gcno) beside them;
 *   --optimize WORKDIR  optimize's best kept stage: bolt's profile and the
 *                       stage it stacked on (pgo or tuned: as --pgo; lto:
 *                       its policy alone);
 *   --builddir DIR      any build made through pgoptcc with the profile
 *                       mode generate and trained: its compile log (--log,
 *                       default DIR/pgopt-log) lists the objects, --policy
 *                       is the policy;
 *   --bundle DIR        an existing bundle: its policy and PGO profiles
 *                       (with a BOLT profile added: what a BOLT training
 *                       on a package build's own server gives);
 *   --bolt-install DIR  a `pgbuild bolt` output (its record names the
 *                       profile), or --bolt-profile FILE.
 * The bundle is assembled in OUT.tmp-PID and renamed to OUT whole, so OUT
 * is never half-written; an existing OUT is replaced only with --force,
 * and only when it is a bundle.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pgbuild/bolt/bolt.h"
#include "pgbuild/build/buildlog.h"
#include "pgbuild/bundle/bundle.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/profile/gcov.h"
#include "pgbuild/profile/pgo.h"
#include "wrapper/common/sha256.h"
#include "wrapper/policy/edit.h"
#include "wrapper/policy/policy.h"

/* Everything one create works with. */
struct pack {
	const struct bundle_create_opts *o;
	char *out;                   /* OUT, absolute */
	char *tmp;                   /* OUT.tmp-PID: the bundle being made */
	char *builddir, *log;        /* the PGO build and its compile log, or NULL */
	char *policy_file;           /* the policy's file (relative lists are its) */
	struct strbuf policy;        /* ... its text */
	struct json_value *pgo;      /* the training's manifest (pgopt-pgo.json), or NULL */
	struct json_value *record;   /* the build's pgopt-build.json, or NULL */
	char *pgo_binary;            /* the PGO install's bin/postgres, or NULL */
	char *bolt_profile;          /* the BOLT profile, or NULL */
	char *bolt_flags;            /* the layout flags it was applied with, or NULL */
	struct json_value *bolt_manifest; /* its manifest, or NULL */
	char *base_dir;              /* --bundle: the bundle the rest comes from */
	struct bundle_verified basev; /* ... checked, kept open: its files are read from it */
	const struct json_value *base; /* ... its manifest (basev's) */
	struct strvec files;         /* the bundle's files (relative), for the manifest */
	struct strbuf units;         /* the manifest's "units" array, JSON */
	double weight;               /* the PGO profile's weight */
	long nunits, nfuncs;
};

static const char *str_or(const char *a, const char *b)
{
	return a ? a : b;
}

static struct json_value *read_json(const char *path)
{
	return access(path, F_OK) == 0 ? buildlog_read_json(path) : NULL;
}

/* ---------------- where the pieces are ---------------- */

static int from_builddir(struct pack *k, const char *builddir, const char *log)
{
	if (!(k->builddir = path_real_as("--builddir", builddir)))
		return -1;
	k->log = log ? xasprintf("%s/%s", log, BUILDLOG_COMPILE)
		     : xasprintf("%s/pgopt-log/%s", k->builddir, BUILDLOG_COMPILE);
	if (access(k->log, R_OK) != 0)
		return error("no compile log %s: %s (give the build's --log LOGDIR)", k->log,
			     strerror(errno));
	return 0;
}

static int from_pgo(struct pack *k, const char *prefix)
{
	char *rec = xasprintf("%s/%s", prefix, PGO_MANIFEST);
	struct json_value *r = read_json(rec);
	const char *bd = r ? json_get_str(r, "builddir") : NULL;
	int rc = 0;

	if (!r || !bd || strcmp(str_or(json_get_str(r, "kind"), ""), "pgbuild-pgo"))
		rc = error("--pgo %s: no %s of pgbuild pgo there (expected the --prefix of a pgbuild pgo run)",
			   prefix, rec);
	if (rc == 0)
		rc = from_builddir(k, bd, NULL);
	if (rc == 0) {
		char *m = xasprintf("%s/%s", k->builddir, PGO_MANIFEST);
		k->pgo = read_json(m);
		free(m);
		k->policy_file = xasprintf("%s/pgo-use.policy", k->builddir);
		m = xasprintf("%s/%s", prefix, BUILDLOG_RECORD);
		k->record = read_json(m);
		free(m);
		k->pgo_binary = xasprintf("%s/bin/postgres", prefix);
		if (!k->pgo)
			rc = error("--pgo %s: its build directory %s has no training manifest %s",
				   prefix, k->builddir, PGO_MANIFEST);
	}
	json_free(r);
	free(rec);
	return rc;
}

/* The BOLT profile of a `pgbuild bolt` output. */
static int from_bolt(struct pack *k, const char *prefix)
{
	char *rec = xasprintf("%s/%s", prefix, BUILDLOG_RECORD);
	struct json_value *r = read_json(rec);
	const char *p = json_get_str(json_get(json_get(r, "bolt"), "profile"), "path");
	const char *flags = json_get_str(json_get(r, "bolt"), "optimize_flags");
	int rc = 0;

	if (!p)
		rc = error("--bolt-install %s: %s has no \"bolt\" record with a profile (expected the --prefix of pgbuild bolt)",
			   prefix, rec);
	else
		k->bolt_profile = xstrdup(p);
	/* the package's rewrite uses the flags the measured one used */
	if (!rc && flags)
		k->bolt_flags = xstrdup(flags);
	json_free(r);
	free(rec);
	return rc;
}

/* optimize's best kept stage: its BOLT profile and the build under it. */
static int from_optimize(struct pack *k, const char *workdir)
{
	char *path = xasprintf("%s/optimize.json", workdir);
	struct json_value *doc = read_json(path);
	const struct json_value *stages = json_get(doc, "stages"), *best = NULL, *base;
	const char *name = json_get_str(doc, "best");
	int rc = 0;

	if (!doc || !stages)
		rc = error("--optimize %s: no optimize.json of pgbuild optimize there", workdir);
	else if (!name || !strcmp(name, "stock"))
		rc = error("--optimize %s: optimize kept no stage over stock: nothing to bundle", workdir);
	for (size_t i = 0; rc == 0 && i < json_len(stages); i++)
		if (!strcmp(str_or(json_get_str(json_at(stages, i), "name"), ""), name))
			best = json_at(stages, i);
	if (rc == 0 && (!best || !json_get_str(best, "prefix")))
		rc = error("--optimize %s: its best stage %s has no install", workdir, name);
	base = best;
	if (rc == 0 && !strcmp(name, "bolt")) {
		const char *on = json_get_str(best, "stacks_on");
		rc = from_bolt(k, json_get_str(best, "prefix"));
		base = NULL;
		for (size_t i = 0; rc == 0 && on && i < json_len(stages); i++)
			if (!strcmp(str_or(json_get_str(json_at(stages, i), "name"), ""), on))
				base = json_at(stages, i);
		if (rc == 0 && (!base || !json_get_str(base, "prefix")))
			rc = error("--optimize %s: the stage bolt stacked on (%s) has no install",
				   workdir, on ? on : "none");
	}
	if (rc == 0) {
		const char *prefix = json_get_str(base, "prefix");
		char *pgo = xasprintf("%s/%s", prefix, PGO_MANIFEST);
		if (access(pgo, F_OK) == 0) {
			rc = from_pgo(k, prefix);
		} else {
			/* lto: the policy alone, as the build recorded it */
			char *rp = xasprintf("%s/%s", prefix, BUILDLOG_RECORD);
			k->record = read_json(rp);
			const char *pp = json_get_str(json_get(k->record, "policy"), "path");
			if (!pp)
				rc = error("--optimize %s: %s records no policy", workdir, rp);
			else
				k->policy_file = xstrdup(pp);
			free(rp);
		}
		free(pgo);
	}
	json_free(doc);
	free(path);
	return rc;
}

/* An existing bundle: its policy and PGO part are the new one's. */
static int from_bundle(struct pack *k, const char *dir)
{
	if (bundle_open_files(dir, &k->basev) < 0)
		return -1;
	k->base = k->basev.manifest;
	k->base_dir = path_absolute(dir);
	k->policy_file = xasprintf("%s/%s", k->base_dir, BUNDLE_POLICY);
	return 0;
}

/* ---------------- the pieces into the bundle ---------------- */

/*
 * Read an input: a file of the --bundle bundle (below base_dir) as a
 * member, checked as read (bundle_verified_read), any other as named.
 * 0, or -1 after the error.
 */
static int read_input(struct pack *k, const char *src, enum sfs_input kind, struct strbuf *out)
{
	struct strbuf err = STRBUF_INIT;
	size_t n = k->base_dir ? strlen(k->base_dir) : 0;
	int rc = 0;

	if (n && !strncmp(src, k->base_dir, n) && src[n] == '/') {
		if (bundle_verified_read(&k->basev, src + n + 1, out, &err) <= 0 && !err.len)
			strbuf_addf(&err, "%s is not one of the bundle's files", src);
		if (err.len)
			rc = error("%s", err.buf);
	} else if (sfs_read(AT_FDCWD, src, kind, 0, out, &err) < 0) {
		rc = error("%s", err.buf);
	}
	strbuf_release(&err);
	return rc;
}

/* Copy src into the bundle as rel (directories made); the file is listed. */
static int put_file(struct pack *k, const char *src, const char *rel)
{
	struct strbuf data = STRBUF_INIT, err = STRBUF_INIT;
	char *dst = xasprintf("%s/%s", k->tmp, rel), *slash = strrchr(dst, '/');
	int rc = 0;

	*slash = '\0';
	if (mkdir_p(dst) < 0)
		rc = error("cannot make %s: %s", dst, strerror(errno));
	*slash = '/';
	if (rc == 0)
		rc = read_input(k, src, SFS_IN_BINARY, &data);
	if (rc == 0 && write_file_atomic(dst, data.buf, data.len) < 0)
		rc = -1;
	if (rc == 0)
		strvec_push(&k->files, rel);
	strbuf_release(&data);
	strbuf_release(&err);
	free(dst);
	return rc;
}

/* The base bundle's PGO profiles, as they are. */
static int put_base_units(struct pack *k)
{
	const struct json_value *files = json_get(k->base, "files");
	int rc = 0;
	for (size_t i = 0; rc == 0 && files && i < files->u.list.nr; i++) {
		const char *rel = files->u.list.keys[i];
		char *from;
		if (strncmp(rel, "gcda/", 5))
			continue;
		from = xasprintf("%s/%s", k->base_dir, rel);
		rc = put_file(k, from, rel);
		free(from);
	}
	k->nunits = (long)json_len(json_get(json_get(k->base, "pgo"), "units"));
	return rc;
}

/* The policy, its hot and cold lists copied to lists/ and named there. */
static int put_policy(struct pack *k)
{
	struct policy_doc d;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	char *dst;
	int rc;

	if (read_input(k, k->policy_file, SFS_IN_TEXT, &text) < 0) {
		strbuf_release(&text);
		return error("cannot read the policy %s", k->policy_file);
	}
	rc = policy_doc_parse(&d, k->policy_file, text.buf, text.len, POLICY_UNCHECKED, &err);
	for (int i = 0; rc == 0 && i < 2; i++) {
		const char *key = i ? "cold" : "hot", *abs = i ? d.pol.cold : d.pol.hot;
		char *rel = xasprintf("lists/%s.txt", key);
		if (abs && (rc = put_file(k, abs, rel)) == 0)
			rc = policy_doc_set(&d, key, rel, &err);
		free(rel);
	}
	if (rc == 0) {
		policy_doc_text(&d, &k->policy);
		dst = xasprintf("%s/%s", k->tmp, BUNDLE_POLICY);
		rc = write_file_atomic(dst, k->policy.buf, k->policy.len);
		free(dst);
		if (rc == 0)
			strvec_push(&k->files, BUNDLE_POLICY);
	} else if (err.len) {
		error("%s", err.buf);
	}
	policy_doc_release(&d);
	strbuf_release(&err);
	strbuf_release(&text);
	return rc < 0 ? -1 : 0;
}

/* One unit's profile: the file and its functions' weights. */
static int put_unit(struct pack *k, const struct buildlog_obj *ob, const char *rel_obj,
		    struct json_writer *jw)
{
	size_t n = strlen(ob->path);
	char *gcda = xasprintf("%.*s.gcda", (int)(n - 2), ob->path);
	char *gcno = xasprintf("%.*s.gcno", (int)(n - 2), ob->path);
	char *rel = policy_bundle_gcda(ob->tu, ob->path);
	const struct json_value *src = json_get(k->pgo, "sources");
	struct gcov_unit u = { 0 };
	struct strbuf err = STRBUF_INIT;
	int rc = 0;

	if (!rel || access(gcda, R_OK) != 0)
		goto out;  /* not profiled (or a name no bundle can hold) */
	if (gcov_read_unit(gcda, access(gcno, R_OK) == 0 ? gcno : NULL, &u, &err) < 0) {
		rc = error("%s", err.buf);
		goto out;
	}
	if ((rc = put_file(k, gcda, rel)) < 0)
		goto out;
	json_object_begin(jw);
	json_key(jw, "tu"); json_string(jw, ob->tu);
	json_key(jw, "object"); json_string(jw, rel_obj);
	json_key(jw, "profile"); json_string(jw, rel);
	json_key(jw, "source_hash"); json_string(jw, json_get_str(src, ob->tu));
	json_key(jw, "weight"); json_double(jw, (double)u.arcs);
	json_key(jw, "functions");
	json_object_begin(jw);
	for (size_t i = 0; i < u.nr; i++) {
		if (!u.v[i].arcs)
			continue;
		if (u.v[i].name) {
			json_key(jw, u.v[i].name);
		} else {
			char id[32];
			snprintf(id, sizeof(id), "#%u", u.v[i].ident);
			json_key(jw, id);
		}
		json_double(jw, (double)u.v[i].arcs);
		k->nfuncs++;
	}
	json_object_end(jw);
	json_object_end(jw);
	k->weight += (double)u.arcs;
	k->nunits++;
out:
	gcov_unit_release(&u);
	strbuf_release(&err);
	free(rel);
	free(gcda);
	free(gcno);
	return rc;
}

/* Every profiled object of the build. */
static int put_units(struct pack *k)
{
	struct buildlog_objs os = { 0 };
	struct json_writer jw;
	size_t bl = strlen(k->builddir);
	int rc = 0;

	json_writer_init(&jw, &k->units);
	json_array_begin(&jw);
	buildlog_objs_read(&os, k->log, NULL, NULL, 1);
	for (size_t i = 0; i < os.nr && rc == 0; i++) {
		const struct buildlog_obj *ob = &os.v[i];
		size_t n = strlen(ob->path);
		if (!ob->tu || n < 3 || strcmp(ob->path + n - 2, ".o") ||
		    strncmp(ob->path, k->builddir, bl) || ob->path[bl] != '/')
			continue;
		rc = put_unit(k, ob, ob->path + bl + 1, &jw);
	}
	json_array_end(&jw);
	buildlog_objs_free(&os);
	if (rc == 0 && !k->nunits)
		rc = error("no profile data (.gcda beside an object) in %s: was the build trained?",
			   k->builddir);
	return rc;
}

/* The BOLT profile and its manifest; checked against the PGO install. */
static int put_bolt(struct pack *k)
{
	char *m = bolt_manifest_path(k->bolt_profile);
	char hex[SHA256_HEX_SIZE];
	int rc = 0;

	k->bolt_manifest = read_json(m);
	/* a profile of another binary (a package build's, as a farm trains
	 * it) is no error: bundle bolt measures what applies */
	if (k->bolt_manifest && k->pgo_binary && bolt_file_sha256(k->pgo_binary, hex) == 0 &&
	    !k->o->quiet) {
		const char *trained = json_get_str(k->bolt_manifest, "input_sha256");
		if (trained && strcmp(trained, hex))
			fprintf(stderr, "bundle: note: the BOLT profile %s was trained on another binary "
				"(sha256 %.12s...) than the PGO install's %s (%.12s...): it applies where "
				"the code is the same, which bundle bolt measures\n",
				k->bolt_profile, trained, k->pgo_binary, hex);
	}
	if (rc == 0)
		rc = put_file(k, k->bolt_profile, BUNDLE_BOLT_PROFILE);
	if (rc == 0 && k->bolt_manifest)
		rc = put_file(k, m, BUNDLE_BOLT_PROFILE ".json");
	free(m);
	return rc;
}

/* ---------------- the manifest ---------------- */

static void copy_key(struct json_writer *jw, const struct json_value *from, const char *key)
{
	const struct json_value *v = json_get(from, key);
	json_key(jw, key);
	if (v)
		json_value_write(jw, v);
	else
		json_null(jw);
}

/* from's member key as a value (null when absent), the key written already. */
static void copy_key_value(struct json_writer *jw, const struct json_value *from, const char *key)
{
	const struct json_value *v = json_get(from, key);
	if (v)
		json_value_write(jw, v);
	else
		json_null(jw);
}

static int write_manifest(struct pack *k)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw;
	const struct json_value *src = json_get(k->record, "source");
	char when[32], *path;
	time_t t = time(NULL);
	int rc = 0;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	json_writer_init(&jw, &sb);
	json_object_begin(&jw);
	json_key(&jw, "kind"); json_string(&jw, BUNDLE_KIND);
	json_key(&jw, "version"); json_int(&jw, 1);
	json_key(&jw, "created"); json_string(&jw, when);
	json_key(&jw, "source");
	if (k->base) {
		copy_key_value(&jw, k->base, "source");
	} else {
		json_object_begin(&jw);
		copy_key(&jw, src, "spec");
		copy_key(&jw, src, "version");
		copy_key(&jw, src, "pkg_version");
		json_key(&jw, "dir");
		json_string(&jw, str_or(json_get_str(k->pgo, "source_dir"), json_get_str(src, "dir")));
		json_object_end(&jw);
	}
	json_key(&jw, "policy"); json_string(&jw, BUNDLE_POLICY);
	json_key(&jw, "pgo");
	if (k->base) {
		copy_key_value(&jw, k->base, "pgo");
	} else if (k->builddir) {
		json_object_begin(&jw);
		json_key(&jw, "trained_on");
		json_object_begin(&jw);
		copy_key(&jw, k->pgo, "workloads");
		copy_key(&jw, k->pgo, "duration");
		copy_key(&jw, k->pgo, "clients");
		copy_key(&jw, k->pgo, "trained");
		json_object_end(&jw);
		json_key(&jw, "use_flags"); json_string(&jw, POLICY_PROFILE_USE);
		json_key(&jw, "weight"); json_double(&jw, k->weight);
		json_key(&jw, "units"); json_raw(&jw, k->units.buf);
		json_object_end(&jw);
	} else {
		json_null(&jw);
	}
	json_key(&jw, "bolt");
	if (k->bolt_profile) {
		json_object_begin(&jw);
		json_key(&jw, "profile"); json_string(&jw, BUNDLE_BOLT_PROFILE);
		json_key(&jw, "optimize_flags");
		json_string(&jw, k->bolt_flags ? k->bolt_flags : BOLT_OPTIMIZE_FLAGS);
		json_key(&jw, "trained_on");
		if (k->bolt_manifest)
			json_value_write(&jw, k->bolt_manifest);
		else
			json_null(&jw);
		json_object_end(&jw);
	} else {
		json_null(&jw);
	}
	json_key(&jw, "files");
	json_object_begin(&jw);
	for (size_t i = 0; i < k->files.nr && rc == 0; i++) {
		char hex[SHA256_HEX_SIZE], *p = xasprintf("%s/%s", k->tmp, k->files.v[i]);
		rc = bolt_file_sha256(p, hex);
		json_key(&jw, k->files.v[i]);
		json_string(&jw, hex);
		free(p);
	}
	json_object_end(&jw);
	json_object_end(&jw);
	strbuf_addch(&sb, '\n');
	path = xasprintf("%s/%s", k->tmp, BUNDLE_MANIFEST_NAME);
	if (rc == 0)
		rc = write_file_atomic(path, sb.buf, sb.len);
	free(path);
	strbuf_release(&sb);
	return rc;
}

/* The new bundle passes the check every use makes (every file it wrote
 * is listed): 0, or -1 after the error. */
static int check_new(struct pack *k)
{
	struct bundle_verified bv = BUNDLE_VERIFIED_INIT;
	struct strbuf err = STRBUF_INIT;
	int rc = bundle_verify(k->tmp, &bv, &err);

	if (rc < 0)
		error("the new bundle does not pass its own check: %s", err.buf);
	else
		bundle_verified_release(&bv);
	strbuf_release(&err);
	return rc;
}

/* OUT may be replaced: absent, or a bundle and --force. */
static int check_out(struct pack *k)
{
	char *m = xasprintf("%s/%s", k->out, BUNDLE_MANIFEST_NAME);
	struct stat st;
	int rc = 0;

	if (lstat(k->out, &st) == 0) {
		if (!S_ISDIR(st.st_mode) || access(m, F_OK) != 0)
			rc = error("--out %s exists and is not a bundle: refusing to replace it", k->out);
		else if (!k->o->force)
			rc = error("--out %s is a bundle already: --force replaces it", k->out);
	}
	free(m);
	return rc;
}

static void pack_release(struct pack *k)
{
	free(k->out);
	free(k->tmp);
	free(k->builddir);
	free(k->log);
	free(k->policy_file);
	free(k->pgo_binary);
	free(k->bolt_profile);
	free(k->bolt_flags);
	strbuf_release(&k->policy);
	strbuf_release(&k->units);
	json_free(k->pgo);
	json_free(k->record);
	json_free(k->bolt_manifest);
	bundle_verified_release(&k->basev);
	free(k->base_dir);
	strvec_clear(&k->files);
}

int bundle_create(const struct bundle_create_opts *o)
{
	struct pack k;
	int rc = 0, sources = !!o->pgo + !!o->optimize + !!o->builddir + !!o->bundle;

	memset(&k, 0, sizeof(k));
	k.basev.dirfd = -1;
	k.o = o;
	strvec_init(&k.files);
	strbuf_init(&k.policy, 0);
	strbuf_init(&k.units, 0);
	/* the command checked the combinations of options */
	if (sources != 1 || (o->builddir && !o->policy))
		return PGBUILD_EXIT_ERROR;
	k.out = path_absolute(o->out);
	rc = check_out(&k);
	if (rc == 0 && o->pgo)
		rc = from_pgo(&k, o->pgo);
	else if (rc == 0 && o->optimize)
		rc = from_optimize(&k, o->optimize);
	else if (rc == 0 && o->bundle)
		rc = from_bundle(&k, o->bundle);
	else if (rc == 0) {
		rc = from_builddir(&k, o->builddir, o->log);
		k.policy_file = xstrdup(o->policy);
	}
	if (rc == 0 && o->bolt)
		rc = from_bolt(&k, o->bolt);
	else if (rc == 0 && o->bolt_profile)
		k.bolt_profile = xstrdup(o->bolt_profile);
	if (rc == 0) {
		k.tmp = xasprintf("%s.tmp-%ld", k.out, (long)getpid());
		if (mkdir_p(k.tmp) < 0)
			rc = error("cannot make %s: %s", k.tmp, strerror(errno));
	}
	if (rc == 0)
		rc = put_policy(&k);
	if (rc == 0 && k.builddir)
		rc = put_units(&k);
	else if (rc == 0 && k.base)
		rc = put_base_units(&k);
	if (rc == 0 && k.bolt_profile)
		rc = put_bolt(&k);
	if (rc == 0)
		rc = write_manifest(&k);
	if (rc == 0)
		rc = check_new(&k);
	if (rc == 0 && access(k.out, F_OK) == 0 && remove_tree(k.out) < 0)
		rc = error("cannot remove the old bundle %s: %s", k.out, strerror(errno));
	if (rc == 0 && rename(k.tmp, k.out) < 0)
		rc = error("cannot rename %s to %s: %s", k.tmp, k.out, strerror(errno));
	if (rc < 0 && k.tmp)
		remove_tree(k.tmp);
	if (rc == 0 && !o->quiet) {
		printf("bundle: %s: the policy, PGO profiles of %ld units", k.out, k.nunits);
		if (k.base)
			printf(" (of the bundle it was made from)");
		else
			printf(" (%ld functions with counts)", k.nfuncs);
		printf("%s\n", k.bolt_profile ? ", a BOLT profile" : ", no BOLT profile");
	}
	pack_release(&k);
	return rc == 0 ? PGBUILD_EXIT_OK : PGBUILD_EXIT_ERROR;
}
