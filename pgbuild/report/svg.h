/*
 * svg.h - inline SVG plots for the HTML pages (report/html.c,
 * optimize/render.c); text is escaped with strbuf_addstr_html.
 */
#ifndef PGBUILD_REPORT_SVG_H
#define PGBUILD_REPORT_SVG_H

#include <stddef.h>

#include "wrapper/common/strbuf.h"

/*
 * One plot: plot_init (size, default margins), set the data range x0..x1,
 * y0..y1 (plot_pad_range widens one), plot_begin (frame, grid, ticks, axis
 * labels), then lines, points, bands and labels, and plot_end.  Everything
 * is appended to out.
 */
struct plot {
	struct strbuf *out;
	double x0, x1, y0, y1;  /* data range */
	int w, h;               /* pixels */
	int ml, mr, mt, mb;     /* margins */
	int logy;               /* logarithmic y axis (y0, y1 > 0) */
};

/* The pixel position of data x, y (y on a log scale with logy). */
double plot_x(const struct plot *p, double x);
double plot_y(const struct plot *p, double y);

/* Widen [lo, hi] a little and make it non-empty. */
void plot_pad_range(double *lo, double *hi, double frac);

/* The frame, y grid and ticks (x ticks when xticks), axes, title, labels. */
void plot_begin(struct plot *p, const char *title, const char *xlabel, const char *ylabel,
		int xticks);

/* A legend row under the title: labels[i] in colors[i]. */
void plot_legend(struct plot *p, int n, const char *const *labels, const char *const *colors);

void plot_end(struct plot *p);

/* A line through the finite points of x, y. */
void plot_polyline(struct plot *p, const double *x, const double *y, size_t n,
		   const char *color, double width, double opacity);

/* A dot at x, y with an optional tooltip. */
void plot_point(struct plot *p, double x, double y, const char *color, const char *tip);

/* where: 0 label at the right end, 1 at the left, 2 in the middle */
void plot_hline(struct plot *p, double y, const char *cls, const char *label, int where);

/* A translucent band from y = lo to hi across the plot. */
void plot_band(struct plot *p, double lo, double hi, const char *fill);

/* An empty plot of w x h pixels writing to out, default margins. */
void plot_init(struct plot *p, struct strbuf *out, int w, int h);

#endif
