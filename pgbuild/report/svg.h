/*
 * svg.h - inline SVG plots for the HTML pages (report/html.c), and the
 * escaping of text for HTML and SVG (every page pgbuild writes).
 */
#ifndef PGBUILD_REPORT_SVG_H
#define PGBUILD_REPORT_SVG_H

#include <stddef.h>

#include "wrapper/common/strbuf.h"

/* Append s with &, <, >, " and ' escaped. */
void html_escape(struct strbuf *out, const char *s);

struct plot {
	struct strbuf *out;
	double x0, x1, y0, y1;  /* data range */
	int w, h;               /* pixels */
	int ml, mr, mt, mb;     /* margins */
	int logy;               /* logarithmic y axis (y0, y1 > 0) */
};

double px(const struct plot *p, double x);

double py(const struct plot *p, double y);

/* Widen [lo, hi] a little and make it non-empty. */
void pad_range(double *lo, double *hi, double frac);

void plot_begin(struct plot *p, const char *title, const char *xlabel, const char *ylabel,
		       int xticks);

void plot_legend(struct plot *p, int n, const char *const *labels, const char *const *colors);

void plot_end(struct plot *p);

void plot_polyline(struct plot *p, const double *x, const double *y, size_t n,
			  const char *color, double width, double opacity);

void plot_point(struct plot *p, double x, double y, const char *color, const char *tip);

/* where: 0 label at the right end, 1 at the left, 2 in the middle */
void plot_hline(struct plot *p, double y, const char *cls, const char *label, int where);

void plot_band(struct plot *p, double lo, double hi, const char *fill);

void plot_init(struct plot *p, struct strbuf *out, int w, int h);

#endif
