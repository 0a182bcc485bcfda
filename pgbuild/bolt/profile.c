/*
 * profile.c - BOLT profiles and their manifests: is a kept profile current
 * for this input and this training, the counts of an .fdata file, file
 * hashes; see bolt.h.
 *
 * The manifest of PROFILE is PROFILE.json, written when the profile was
 * trained (bolt/train.c): {"input_sha256", "workloads", "duration",
 * "clients", "scale", ...}.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgbuild/bolt/bolt.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/common/sha256.h"

char *bolt_manifest_path(const char *profile)
{
	return xasprintf("%s.json", profile);
}

/* The first 12 hex digits, for messages. */
static const char *short_sha(const char *sha, char buf[16])
{
	snprintf(buf, 16, "%.12s", sha ? sha : "?");
	return buf;
}

int bolt_profile_check(const struct json_value *m, const struct bolt_train_key *want,
		       unsigned what, struct strbuf *why)
{
	const char *sha, *wl, *set;
	char a[16], b[16];
	double dur;
	int clients, scale;

	if (!m || m->type != JSON_OBJECT) {
		strbuf_addstr(why, "it has no manifest saying what it was trained on");
		return 0;
	}
	sha = json_get_str(m, "input_sha256");
	if ((what & BOLT_CHECK_INPUT) && (!sha || strcmp(sha, want->input_sha256))) {
		strbuf_addf(why, "the input binary changed (sha256 %s... now, %s... when trained)",
			    short_sha(want->input_sha256, a), short_sha(sha, b));
		return 0;
	}
	wl = json_get_str(m, "workloads");
	if ((what & BOLT_CHECK_WORKLOADS) && (!wl || strcmp(wl, want->workloads))) {
		strbuf_addf(why, "the workloads changed (trained on %s; now %s)", wl ? wl : "?",
			    want->workloads);
		return 0;
	}
	dur = json_get_num(m, "duration", -1);
	clients = (int)json_get_num(m, "clients", -1);
	scale = (int)json_get_num(m, "scale", -1);
	if ((what & BOLT_CHECK_TRAINING) &&
	    (fabs(dur - want->duration) > 1e-9 || clients != want->clients || scale != want->scale)) {
		strbuf_addf(why, "the training changed (trained %g s per workload, %d clients, "
			    "scale %d; now %g s, %d clients, scale %d)", dur, clients, scale,
			    want->duration, want->clients, want->scale);
		return 0;
	}
	set = json_get_str(m, "extra_settings");
	if ((what & BOLT_CHECK_TRAINING) && strcmp(set ? set : "", want->settings ? want->settings : "")) {
		strbuf_addf(why, "the training settings changed (trained with \"%s\"; now \"%s\")",
			    set ? set : "", want->settings ? want->settings : "");
		return 0;
	}
	return 1;
}

/* The last number of the line l[0..len): an fdata record's count. */
static int64_t line_count(const char *l, size_t len)
{
	const char *e = l + len, *s;
	while (e > l && (e[-1] == ' ' || e[-1] == '\r'))
		e--;
	s = e;
	while (s > l && s[-1] >= '0' && s[-1] <= '9')
		s--;
	if (s == e || (s > l && s[-1] != ' '))
		return 0;
	return strtoll(s, NULL, 10);
}

int64_t bolt_fdata_count(int dirfd, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	int64_t sum = 0;

	if (sfs_read(dirfd, name, SFS_IN_PROFILE, SFS_NOFOLLOW, &sb, NULL) < 0) {
		strbuf_release(&sb);
		return -1;
	}
	for (const char *l = sb.buf; *l;) {
		size_t len = strcspn(l, "\n");
		sum += line_count(l, len);
		l += len + (l[len] ? 1 : 0);
	}
	strbuf_release(&sb);
	return sum;
}

int bolt_file_sha256(const char *path, char hex[65])
{
	struct strbuf err = STRBUF_INIT;
	int rc = sha256_file(AT_FDCWD, path, SFS_IN_BINARY, 0, hex, &err);
	if (rc < 0)
		error("%s", err.buf);
	strbuf_release(&err);
	return rc;
}
