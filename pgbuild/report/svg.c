/*
 * svg.c - a tiny SVG plot helper (struct plot): data ranges mapped to a
 * pixel box with margins, "nice" axis ticks, polylines, points, bands;
 * and the escaping of text for HTML and SVG.  See svg.h.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pgbuild/report/svg.h"

double plot_x(const struct plot *p, double x)
{
	double span = p->x1 - p->x0;
	return p->ml + (span > 0 ? (x - p->x0) / span : 0.5) * (p->w - p->ml - p->mr);
}

double plot_y(const struct plot *p, double y)
{
	double y0 = p->y0, y1 = p->y1, span;
	if (p->logy) {
		y = log10(y > 0 ? y : y0);
		y0 = log10(y0);
		y1 = log10(y1);
	}
	span = y1 - y0;
	return p->mt + (1 - (span > 0 ? (y - y0) / span : 0.5)) * (p->h - p->mt - p->mb);
}

static double nice_step(double range)
{
	double raw = range / 5, mag, f;
	if (!(raw > 0))
		return 1;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

static void fmt_tick(char *buf, size_t n, double v, double step)
{
	if (fabs(v) >= 10000)
		snprintf(buf, n, "%.0fk", v / 1000);
	else if (step >= 1)
		snprintf(buf, n, "%.0f", v);
	else if (step >= 0.1)
		snprintf(buf, n, "%.1f", v);
	else if (step >= 0.01)
		snprintf(buf, n, "%.2f", v);
	else
		snprintf(buf, n, "%.3f", v);
}

/* Widen [lo, hi] a little and make it non-empty. */
void plot_pad_range(double *lo, double *hi, double frac)
{
	double span;
	if (!isfinite(*lo) || !isfinite(*hi)) {
		*lo = 0;
		*hi = 1;
		return;
	}
	if (*hi <= *lo) {
		double d = fabs(*lo) * 0.05 + 1e-9;
		*lo -= d;
		*hi += d;
	}
	span = *hi - *lo;
	*lo -= span * frac;
	*hi += span * frac;
}

void plot_begin(struct plot *p, const char *title, const char *xlabel, const char *ylabel,
		int xticks)
{
	struct strbuf *o = p->out;
	double step = nice_step(p->y1 - p->y0);
	char buf[32];

	strbuf_addf(o, "<svg width=\"%d\" height=\"%d\" "
		    "viewBox=\"0 0 %d %d\" role=\"img\"><title>", p->w, p->h, p->w, p->h);
	strbuf_addstr_html(o, title);
	strbuf_addstr(o, "</title>");
	strbuf_addf(o, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>", p->w, p->h);
	strbuf_addf(o, "<text x=\"%d\" y=\"16\" class=\"pt\">", p->ml);
	strbuf_addstr_html(o, title);
	strbuf_addstr(o, "</text>");
	/* y grid and ticks */
	if (p->logy) {
		static const double mant[] = { 1, 2, 5 };
		for (int e = (int)floor(log10(p->y0)); e <= (int)ceil(log10(p->y1)); e++)
			for (int m = 0; m < 3; m++) {
				double v = mant[m] * pow(10, e), y;
				if (v < p->y0 || v > p->y1)
					continue;
				y = plot_y(p, v);
				fmt_tick(buf, sizeof(buf), v, pow(10, e));
				strbuf_addf(o, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>",
					    p->ml, p->w - p->mr, y, y);
				strbuf_addf(o, "<text x=\"%d\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s</text>",
					    p->ml - 4, y + 4, buf);
			}
	} else {
		for (double v = ceil(p->y0 / step) * step; v <= p->y1 + step * 1e-9; v += step) {
			double y = plot_y(p, v);
			fmt_tick(buf, sizeof(buf), v, step);
			strbuf_addf(o, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>",
				    p->ml, p->w - p->mr, y, y);
			strbuf_addf(o, "<text x=\"%d\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s</text>",
				    p->ml - 4, y + 4, buf);
		}
	}
	if (xticks) {
		double xs = nice_step(p->x1 - p->x0);
		if (xs < 1)
			xs = 1;
		for (double v = ceil(p->x0 / xs) * xs; v <= p->x1 + xs * 1e-9; v += xs) {
			fmt_tick(buf, sizeof(buf), v, xs);
			strbuf_addf(o, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%s</text>",
				    plot_x(p, v), p->h - p->mb + 14, buf);
		}
	}
	/* axes */
	strbuf_addf(o, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" class=\"axis\"/>",
		    p->ml, p->w - p->mr, p->h - p->mb, p->h - p->mb);
	strbuf_addf(o, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" class=\"axis\"/>",
		    p->ml, p->ml, p->mt, p->h - p->mb);
	strbuf_addf(o, "<text x=\"%d\" y=\"%d\" class=\"lab\" text-anchor=\"middle\">",
		    (p->ml + p->w - p->mr) / 2, p->h - 4);
	strbuf_addstr_html(o, xlabel);
	strbuf_addf(o, "</text><text x=\"12\" y=\"%d\" class=\"lab\" text-anchor=\"middle\" "
		    "transform=\"rotate(-90 12 %d)\">", (p->mt + p->h - p->mb) / 2, (p->mt + p->h - p->mb) / 2);
	strbuf_addstr_html(o, ylabel);
	strbuf_addstr(o, "</text>");
}

void plot_legend(struct plot *p, int n, const char *const *labels, const char *const *colors)
{
	int x = p->ml;
	for (int i = 0; i < n; i++) {
		strbuf_addf(p->out, "<rect x=\"%d\" y=\"26\" width=\"14\" height=\"4\" fill=\"%s\"/>"
			    "<text x=\"%d\" y=\"31\" class=\"tick\">", x, colors[i], x + 18);
		strbuf_addstr_html(p->out, labels[i]);
		strbuf_addstr(p->out, "</text>");
		x += 30 + 7 * (int)strlen(labels[i]);
	}
}

void plot_end(struct plot *p)
{
	strbuf_addstr(p->out, "</svg>\n");
}

void plot_polyline(struct plot *p, const double *x, const double *y, size_t n,
		   const char *color, double width, double opacity)
{
	int any = 0;
	if (n < 1)
		return;
	strbuf_addf(p->out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" "
		    "stroke-opacity=\"%.2f\" points=\"", color, width, opacity);
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]) || !isfinite(y[i]))
			continue;
		strbuf_addf(p->out, "%s%.1f,%.1f", any ? " " : "", plot_x(p, x[i]), plot_y(p, y[i]));
		any = 1;
	}
	strbuf_addstr(p->out, "\"/>");
}

void plot_point(struct plot *p, double x, double y, const char *color, const char *tip)
{
	if (!isfinite(x) || !isfinite(y))
		return;
	strbuf_addf(p->out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\">", plot_x(p, x), plot_y(p, y), color);
	if (tip) {
		strbuf_addstr(p->out, "<title>");
		strbuf_addstr_html(p->out, tip);
		strbuf_addstr(p->out, "</title>");
	}
	strbuf_addstr(p->out, "</circle>");
}

/* where: 0 label at the right end, 1 at the left, 2 in the middle */
void plot_hline(struct plot *p, double y, const char *cls, const char *label, int where)
{
	static const char *anchor[] = { "end", "start", "middle" };
	double x;
	if (!isfinite(y) || y < p->y0 || y > p->y1)
		return;
	strbuf_addf(p->out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"%s\"/>",
		    p->ml, p->w - p->mr, plot_y(p, y), plot_y(p, y), cls);
	if (label) {
		x = where == 0 ? p->w - p->mr - 2 : where == 1 ? p->ml + 4 : (p->ml + p->w - p->mr) / 2.0;
		strbuf_addf(p->out, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"%s\">",
			    x, plot_y(p, y) - 3, anchor[where]);
		strbuf_addstr_html(p->out, label);
		strbuf_addstr(p->out, "</text>");
	}
}

void plot_band(struct plot *p, double lo, double hi, const char *fill)
{
	double a, b;
	if (!isfinite(lo) || !isfinite(hi))
		return;
	a = plot_y(p, hi < p->y1 ? hi : p->y1);
	b = plot_y(p, lo > p->y0 ? lo : p->y0);
	strbuf_addf(p->out, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\" "
		    "fill-opacity=\"0.25\"/>", p->ml, a, p->w - p->ml - p->mr, b - a, fill);
}

void plot_init(struct plot *p, struct strbuf *out, int w, int h)
{
	memset(p, 0, sizeof(*p));
	p->out = out;
	p->w = w;
	p->h = h;
	p->ml = 58;
	p->mr = 16;
	p->mt = 40;
	p->mb = 36;
}
