/*
 * noise.c - the layout noise floor's arithmetic (the spread of a metric
 * over variants, the seeded shuffle) and its outputs (the table, the JSON
 * document); see noise.h.  The variants are made and measured in
 * variants.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/cli/cli.h"
#include "pgbuild/noise/floor.h"
#include "pgbuild/noise/noise.h"
#include "wrapper/common/json.h"

const char *noise_metric_name(int m)
{
	return metrics_noise_column((size_t)m);
}

void noise_stats_of(const double *v, size_t n, struct noise_stats *out)
{
	double sum = 0, ss = 0;
	memset(out, 0, sizeof(*out));
	out->n = n;
	if (!n)
		return;
	out->min = out->max = v[0];
	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		if (v[i] < out->min)
			out->min = v[i];
		if (v[i] > out->max)
			out->max = v[i];
	}
	out->mean = sum / (double)n;
	/* the sum rounds: equal values (0.1 three times) could give a mean
	 * just outside their range, which a reader rightly rejects */
	if (out->mean < out->min)
		out->mean = out->min;
	if (out->mean > out->max)
		out->mean = out->max;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - out->mean) * (v[i] - out->mean);
	out->sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
	if (out->mean != 0) {
		out->sd_pct = 100 * out->sd / fabs(out->mean);
		out->range_pct = 100 * (out->max - out->min) / fabs(out->mean);
	}
}

/* splitmix64 (Steele, Lea, Flood 2014): one 64-bit state, a fixed output. */
static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void noise_shuffle(size_t *perm, size_t n, uint64_t seed)
{
	uint64_t x = seed;
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(splitmix64(&x) % i), t = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = t;
	}
}

uint64_t noise_variant_seed(uint64_t seed, int k)
{
	uint64_t x = seed ^ ((uint64_t)k << 32);
	return splitmix64(&x);
}

void noise_opts_init(struct noise_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->variants = CLI_NOISE_VARIANTS;
	o->seed = 1;
	strvec_init(&o->workloads);
}

void noise_opts_release(struct noise_opts *o)
{
	strvec_clear(&o->workloads);
}

double *noise_value(const struct noise_result *r, size_t w, int m, int k)
{
	size_t nv = (size_t)r->o->variants;
	return &r->values[(w * NOISE_NMETRICS + (size_t)m) * nv + (size_t)k];
}

int noise_metric_on(const struct noise_result *r, int m)
{
	return (r->o->metrics & metrics_noise_bit((size_t)m)) != 0;
}

/* The statistics of metric m of workload w over the variants. */
static void stats_at(const struct noise_result *r, size_t w, int m, struct noise_stats *st)
{
	noise_stats_of(noise_value(r, w, m, 0), (size_t)r->o->variants, st);
}

void noise_print_table(const struct noise_result *r, FILE *fp)
{
	const struct noise_opts *o = r->o;
	fprintf(fp, "noise: %d variants of %s (postgres relinked, %zu objects in seeded "
		"orders%s; prefixes at paths of equal length)\n", o->variants, r->prefix,
		r->objects, r->lto ? ", LTO links" : "");
	fprintf(fp, "%-12s %-22s %14s %12s %9s %14s %14s %9s\n", "workload", "metric", "mean",
		"sd", "sd%", "min", "max", "range%");
	for (size_t w = 0; w < o->workloads.nr; w++) {
		for (int m = 0; m < NOISE_NMETRICS; m++) {
			struct noise_stats st;
			if (!noise_metric_on(r, m))
				continue;
			stats_at(r, w, m, &st);
			fprintf(fp, "%-12s %-22s %14.2f %12.2f %8.4f%% %14.2f %14.2f %8.4f%%\n",
				o->workloads.v[w], noise_metric_name(m), st.mean, st.sd,
				st.sd_pct, st.min, st.max, st.range_pct);
		}
	}
	/* the line a pipeline's stage shows: what the gates decide at
	 * (floor.h's rule, against a candidate whose stand-in is this SD) */
	fprintf(fp, "layout SD over %d variants (a gate against a candidate without a floor "
		"decides the cycles estimate at %.2f x sqrt(2) x %.3f = %.2f of them):",
		o->variants, noise_floor_z(),
		noise_floor_sd_bound(1, o->variants),
		noise_floor_z() * M_SQRT2 * noise_floor_sd_bound(1, o->variants));
	for (size_t w = 0; w < o->workloads.nr; w++) {
		struct noise_stats in, cy;
		stats_at(r, w, NOISE_INSTR, &in);
		stats_at(r, w, NOISE_CYC_EST, &cy);
		fprintf(fp, "%s %s", w ? ";" : "", o->workloads.v[w]);
		if (noise_metric_on(r, NOISE_INSTR))
			fprintf(fp, " instructions %.4f%%", in.sd_pct);
		if (noise_metric_on(r, NOISE_CYC_EST))
			fprintf(fp, "%s cycles estimate %.3f%%", noise_metric_on(r, NOISE_INSTR) ?
				"," : "", cy.sd_pct);
	}
	fputc('\n', fp);
}

static void json_stats(struct json_writer *jw, const struct noise_result *r, size_t w, int m)
{
	struct noise_stats st;
	stats_at(r, w, m, &st);
	json_object_begin(jw);
	json_key(jw, "values");
	json_array_begin(jw);
	for (int k = 0; k < r->o->variants; k++)
		json_double(jw, *noise_value(r, w, m, k));
	json_array_end(jw);
	json_key(jw, "mean"); json_double(jw, st.mean);
	json_key(jw, "sd"); json_double(jw, st.sd);
	json_key(jw, "sd_pct"); json_double(jw, st.sd_pct);
	json_key(jw, "min"); json_double(jw, st.min);
	json_key(jw, "max"); json_double(jw, st.max);
	json_key(jw, "range_pct"); json_double(jw, st.range_pct);
	json_object_end(jw);
}

static void json_variants(struct json_writer *jw, const struct noise_result *r)
{
	json_key(jw, "variants");
	json_array_begin(jw);
	for (int k = 0; k < r->o->variants; k++) {
		const struct noise_variant *v = &r->v[k];
		char seed[24];
		snprintf(seed, sizeof(seed), "%llu", (unsigned long long)v->seed);
		json_object_begin(jw);
		json_key(jw, "seed"); json_string(jw, seed);
		json_key(jw, "prefix"); json_string(jw, v->prefix);
		json_key(jw, "postgres_sha256"); json_string(jw, v->sha256);
		json_key(jw, "link_seconds"); json_double(jw, v->link_seconds);
		json_object_end(jw);
	}
	json_array_end(jw);
}

/* "functions": every function's spread, the part `explain --noise` reads. */
static void json_functions(struct json_writer *jw, const struct noise_functions *t)
{
	json_key(jw, "functions");
	json_array_begin(jw);
	for (size_t i = 0; i < t->nr; i++) {
		const struct noise_function *f = &t->v[i];
		if (!(f->mean > 0))
			continue;
		json_object_begin(jw);
		json_key(jw, "function"); json_string(jw, f->function);
		json_key(jw, "object"); json_string(jw, f->object);
		json_key(jw, "mean"); json_double(jw, f->mean);
		json_key(jw, "sd"); json_double(jw, f->sd);
		json_key(jw, "spread"); json_double(jw, f->spread);
		json_object_end(jw);
	}
	json_array_end(jw);
}

static void json_workloads(struct json_writer *jw, const struct noise_result *r)
{
	const struct noise_opts *o = r->o;
	json_key(jw, "workloads");
	json_object_begin(jw);
	for (size_t w = 0; w < o->workloads.nr; w++) {
		json_key(jw, o->workloads.v[w]);
		json_object_begin(jw);
		for (int m = 0; m < NOISE_NMETRICS; m++) {
			if (!noise_metric_on(r, m))
				continue;
			json_key(jw, noise_metric_name(m));
			json_stats(jw, r, w, m);
		}
		if (r->fns)
			json_functions(jw, &r->fns[w]);
		json_object_end(jw);
	}
	json_object_end(jw);
}

void noise_json(const struct noise_result *r, struct strbuf *sb)
{
	const struct noise_opts *o = r->o;
	struct json_writer jw;
	char seed[24];

	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)o->seed);
	json_writer_init(&jw, sb);
	json_object_begin(&jw);
	json_key(&jw, "kind"); json_string(&jw, "pgbuild-noise");
	json_key(&jw, "version"); json_int(&jw, 1);
	json_key(&jw, "what");
	json_string(&jw, "layout noise floor: postgres relinked with its object files in "
		    "seeded shuffled orders, each in a copy of the prefix at a path of equal length");
	json_key(&jw, "prefix"); json_string(&jw, r->prefix);
	json_key(&jw, "builddir"); json_string(&jw, r->builddir);
	json_key(&jw, "postgres_sha256"); json_string(&jw, r->sha256);
	json_key(&jw, "started"); json_string(&jw, r->started);
	json_key(&jw, "seconds"); json_double(&jw, r->seconds);
	json_key(&jw, "seed"); json_string(&jw, seed);
	json_key(&jw, "lto"); json_bool(&jw, r->lto);
	json_key(&jw, "link_log_line"); json_int(&jw, r->link_line);
	json_key(&jw, "objects"); json_int(&jw, (int64_t)r->objects);
	json_key(&jw, "metrics"); json_string(&jw, cli_metrics_text(o->metrics));
	json_key(&jw, "counter"); json_string(&jw, r->counter);
	json_key(&jw, "statements"); json_int(&jw, o->statements);
	json_variants(&jw, r);
	json_workloads(&jw, r);
	json_object_end(&jw);
	strbuf_addch(sb, '\n');
}
