/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-plot's canvas: a cairo surface that writes to a file opened by
 * us (so that a file that cannot be written is reported with its errno
 * before anything is drawn), text that stays inside the canvas and reports
 * its box, the colour scales and the legends every picture shares.
 *
 * Colours. The heat maps use viridis (van der Walt and Smith, matplotlib
 * 2015: perceptually uniform, readable by colour-blind people and in grey)
 * reversed, so that little traffic is light and much is dark on the white
 * of no traffic; its 11 sample points are matplotlib's published ones.
 * Hop counts use the Okabe-Ito colours (Okabe and Ito 2008) ordered from
 * cool (near) to warm (far); benchmark series Paul Tol's "muted" scheme and
 * three Okabe-Ito colours. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>

#include "plot.h"

#define PLOT_FONT "DejaVu Sans"
#define PLOT_MIN_SIDE 64
#define PLOT_MAX_SIDE 16384

double plot_font_size(double w, double h)
{
    /* 12 units on a 700-unit wide canvas, less on a flat one, clamped to a
     * readable range. */
    return fmin(16, fmax(8, fmin(w / 58, h > 0 ? h / 24 : w)));
}

int topomap_plot_available(void)
{
    return 1;
}

/* ---- the canvas --------------------------------------------------------- */

static cairo_status_t write_file(void *closure, const unsigned char *data, unsigned int len)
{
    struct plot *pl = closure;
    return fwrite(data, 1, len, pl->f) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

int plot_open(struct plot *pl, const char *path, const topomap_plot_opts_t *o, double w, double h,
              char *err, size_t errlen)
{
    memset(pl, 0, sizeof *pl);
    if (o)
        pl->o = *o;
    else
        topomap_plot_opts_init(&pl->o);
    pl->err = err;
    pl->errlen = errlen;
    pl->path = path;
    if (!path || !*path)
        return plot_fail(err, errlen, EINVAL, "no file name for the picture");
    int format = topomap_plot_format_of(path, pl->o.format, err, errlen);
    if (format < 0)
        return -1;
    w = round(w);
    h = round(h);
    if (!(w >= PLOT_MIN_SIDE && w <= PLOT_MAX_SIDE && h >= PLOT_MIN_SIDE && h <= PLOT_MAX_SIDE))
        return plot_fail(err, errlen, EINVAL, "picture size %gx%g: each side must be %d to %d", w,
                         h, PLOT_MIN_SIDE, PLOT_MAX_SIDE);
    pl->format = format;
    pl->w = w;
    pl->h = h;
    pl->f = fopen(path, "wb");
    if (!pl->f)
        return plot_fail(err, errlen, errno, "cannot write '%s': %s", path, strerror(errno));
    struct stat st;
    pl->regular = fstat(fileno(pl->f), &st) == 0 && S_ISREG(st.st_mode);
    if (format == TOPOMAP_PLOT_PNG)
        pl->surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)w, (int)h);
    else if (format == TOPOMAP_PLOT_SVG)
        pl->surf = cairo_svg_surface_create_for_stream(write_file, pl, w, h);
    else
        pl->surf = cairo_pdf_surface_create_for_stream(write_file, pl, w, h);
    pl->cr = cairo_create(pl->surf);
    if (cairo_status(pl->cr) != CAIRO_STATUS_SUCCESS)
        return plot_abort(pl, ENOMEM);
    cairo_select_font_face(pl->cr, PLOT_FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_line_join(pl->cr, CAIRO_LINE_JOIN_ROUND);
    cairo_set_source_rgb(pl->cr, 1, 1, 1);
    cairo_paint(pl->cr);
    pl->font = plot_font_size(w, h);
    return 0;
}

/* Close everything; the file stays only when rc == 0. */
static int plot_finish(struct plot *pl, int rc, int e)
{
    if (pl->cr)
        cairo_destroy(pl->cr);
    if (pl->surf) {
        cairo_surface_finish(pl->surf);
        if (rc == 0 && cairo_surface_status(pl->surf) != CAIRO_STATUS_SUCCESS) {
            rc = -1;
            e = ferror(pl->f) && errno ? errno : ENOMEM;
        }
        cairo_surface_destroy(pl->surf);
    }
    if (pl->f) {
        if (fclose(pl->f) != 0 && rc == 0) {
            rc = -1;
            e = errno;
        }
        if (rc != 0 && pl->regular)
            unlink(pl->path); /* a partial picture; never a device or a pipe */
    }
    pl->f = NULL;
    pl->cr = NULL;
    pl->surf = NULL;
    if (rc != 0) {
        if (pl->err && pl->errlen && !*pl->err)
            snprintf(pl->err, pl->errlen, "cannot write '%s': %s", pl->path, strerror(e));
        errno = e;
    }
    return rc;
}

int plot_close(struct plot *pl)
{
    if (pl->format == TOPOMAP_PLOT_PNG && pl->surf) {
        cairo_surface_flush(pl->surf);
        errno = 0;
        if (cairo_surface_write_to_png_stream(pl->surf, write_file, pl) != CAIRO_STATUS_SUCCESS)
            return plot_finish(pl, -1, errno ? errno : EIO);
    }
    errno = 0;
    if (fflush(pl->f) != 0)
        return plot_finish(pl, -1, errno);
    return plot_finish(pl, 0, 0);
}

int plot_abort(struct plot *pl, int e)
{
    return plot_finish(pl, -1, e);
}

void plot_item(struct plot *pl, int kind, int a, int b, double value, double x, double y,
               double w, double h)
{
    if (!pl->o.on_item)
        return;
    topomap_plot_item_t it = {kind, pl->panel, a, b, value, x, y, w, h, NULL};
    pl->o.on_item(&it, pl->o.item_arg);
}

/* ---- text --------------------------------------------------------------- */

double plot_text_width(struct plot *pl, double size, const char *s)
{
    cairo_text_extents_t te;
    cairo_set_font_size(pl->cr, size);
    cairo_text_extents(pl->cr, s, &te);
    return te.x_advance;
}

double plot_text(struct plot *pl, double x, double y, double size, double ha, double va,
                 double maxw, double angle, const char *s)
{
    cairo_t *cr = pl->cr;
    if (!s || !*s)
        return 0;
    cairo_set_font_size(cr, size);
    cairo_text_extents_t te;
    cairo_text_extents(cr, s, &te);
    if (maxw > 0 && te.x_advance > maxw) {
        size *= maxw / te.x_advance;
        cairo_set_font_size(cr, size);
        cairo_text_extents(cr, s, &te);
    }
    if (size < 4)
        return 0;
    cairo_font_extents_t fe;
    cairo_font_extents(cr, &fe);
    /* In the text's own frame (before rotation): where the pen starts. */
    double tw = te.x_advance, th = fe.ascent + fe.descent;
    double px = -ha * tw, py = fe.ascent - va * th;
    /* The ink box in the text's frame, then on the canvas. */
    double bx0 = px + te.x_bearing, by0 = py + te.y_bearing;
    double bx1 = bx0 + te.width, by1 = by0 + te.height;
    double c = cos(angle), sn = sin(angle);
    double cx[4] = {bx0, bx1, bx1, bx0}, cy[4] = {by0, by0, by1, by1};
    double minx = INFINITY, maxx = -INFINITY, miny = INFINITY, maxy = -INFINITY;
    for (int k = 0; k < 4; k++) {
        double X = x + c * cx[k] - sn * cy[k], Y = y + sn * cx[k] + c * cy[k];
        minx = fmin(minx, X);
        maxx = fmax(maxx, X);
        miny = fmin(miny, Y);
        maxy = fmax(maxy, Y);
    }
    /* Keep it on the canvas: a label never sticks out of the picture. */
    double dx = 0, dy = 0;
    if (minx < 1)
        dx = 1 - minx;
    else if (maxx > pl->w - 1)
        dx = pl->w - 1 - maxx;
    if (miny < 1)
        dy = 1 - miny;
    else if (maxy > pl->h - 1)
        dy = pl->h - 1 - maxy;
    x += dx;
    y += dy;
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_rotate(cr, angle);
    cairo_move_to(cr, px, py);
    cairo_show_text(cr, s);
    cairo_restore(cr);
    cairo_new_path(cr);
    if (pl->o.on_item) {
        topomap_plot_item_t it = {TOPOMAP_PLOT_ITEM_TEXT, pl->panel, 0, 0, size,
                                  minx + dx, miny + dy, maxx - minx, maxy - miny, s};
        pl->o.on_item(&it, pl->o.item_arg);
    }
    return tw;
}

double plot_title(struct plot *pl, const char *title)
{
    if (!title || !*title)
        return pl->font * 0.8;
    double size = pl->font * 1.25;
    cairo_set_source_rgb(pl->cr, 0, 0, 0);
    plot_text(pl, pl->w / 2, pl->font * 0.6, size, 0.5, 0, pl->w - 2 * pl->font, 0, title);
    return pl->font * 0.6 + size * 1.6;
}

/* ---- colours ------------------------------------------------------------ */

void plot_rgb(cairo_t *cr, uint32_t rgb)
{
    cairo_set_source_rgb(cr, (rgb >> 16 & 255) / 255.0, (rgb >> 8 & 255) / 255.0,
                         (rgb & 255) / 255.0);
}

void plot_rgba(cairo_t *cr, uint32_t rgb, double alpha)
{
    cairo_set_source_rgba(cr, (rgb >> 16 & 255) / 255.0, (rgb >> 8 & 255) / 255.0,
                          (rgb & 255) / 255.0, alpha);
}

/* matplotlib's viridis at 0, 0.1, ..., 1. */
static const uint32_t viridis[11] = {0x440154, 0x482475, 0x414487, 0x355f8d, 0x2a788e, 0x21918c,
                                     0x22a884, 0x44bf70, 0x7ad151, 0xbddf26, 0xfde725};

uint32_t plot_heat(double t)
{
    if (!(t > 0))
        t = 0;
    if (t > 1)
        t = 1;
    double u = (1 - t) * 10; /* reversed: 0 -> yellow, 1 -> purple */
    int i = (int)u;
    if (i >= 10)
        return viridis[10];
    double f = u - i;
    uint32_t a = viridis[i], b = viridis[i + 1], out = 0;
    for (int s = 16; s >= 0; s -= 8) {
        double ca = a >> s & 255, cb = b >> s & 255;
        out |= (uint32_t)lround(ca + f * (cb - ca)) << s;
    }
    return out;
}

double plot_logpos(double v, double lo, double hi)
{
    if (!(v > 0))
        return 0;
    if (!(hi > lo))
        return 1;
    double t = (log10(v) - log10(lo)) / (log10(hi) - log10(lo));
    return t < 0 ? 0 : t > 1 ? 1 : t;
}

/* Okabe-Ito blue, bluish green, orange, vermillion, reddish purple, then
 * Tol's wine: neighbours in the order differ in hue and lightness. */
static const uint32_t hop_palette[6] = {0x0072b2, 0x009e73, 0xe69f00, 0xd55e00, 0xcc79a7,
                                        0x882255};

/* The class (0..5) of h hops out of hmax: one per hop count up to 6,
 * else 6 ranges of equal width. */
static int hop_class(int h, int hmax)
{
    if (h < 1)
        h = 1;
    if (hmax <= 6)
        return h > 6 ? 5 : h - 1;
    int c = (int)ceil((double)h * 6 / hmax) - 1;
    return c < 0 ? 0 : c > 5 ? 5 : c;
}

uint32_t plot_hops_colour(int h, int hmax)
{
    return hop_palette[hop_class(h, hmax)];
}

static const uint32_t series_palette[12] = {0x332288, 0x88ccee, 0x44aa99, 0x117733, 0x999933,
                                            0xddcc77, 0xcc6677, 0x882255, 0xaa4499, 0xe69f00,
                                            0x0072b2, 0x000000};

uint32_t plot_series_colour(int k, int *hatched)
{
    if (hatched)
        *hatched = k >= 12;
    return series_palette[k % 12];
}

/* ---- legends ------------------------------------------------------------ */

int plot_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int plot_round_step(int n, int max)
{
    for (int s = 1;; s *= 10)
        for (int f = 1; f <= 5; f += f == 1 ? 1 : 3)
            if (n / (s * f) <= max || s * f > n)
                return s * f;
}

const char *plot_si(double v, const char *unit, char *buf, size_t len)
{
    static const char *prefix[] = {"", "k", "M", "G", "T", "P", "E"};
    int u = 0;
    while (fabs(v) >= 999.5 && u < 6) {
        v /= 1000;
        u++;
    }
    snprintf(buf, len, "%.3g%s%s%s", v, *prefix[u] || *unit ? " " : "", prefix[u], unit);
    return buf;
}

const char *plot_bytes(double v, char *buf, size_t len)
{
    return plot_si(v, "B", buf, len);
}

double plot_colourbar(struct plot *pl, double x, double y, double w, double h, double lo,
                      double hi, const char *label)
{
    cairo_t *cr = pl->cr;
    double fs = pl->font * 0.85;
    cairo_set_source_rgb(cr, 0, 0, 0);
    plot_text(pl, x, y, fs, 0, 0, w, 0, label);
    double by = y + fs * 1.5;
    cairo_pattern_t *g = cairo_pattern_create_linear(x, 0, x + w, 0);
    for (int i = 0; i <= 20; i++) {
        uint32_t c = plot_heat(i / 20.0);
        cairo_pattern_add_color_stop_rgb(g, i / 20.0, (c >> 16 & 255) / 255.0,
                                         (c >> 8 & 255) / 255.0, (c & 255) / 255.0);
    }
    cairo_rectangle(cr, x, by, w, h);
    cairo_set_source(cr, g);
    cairo_fill_preserve(cr);
    cairo_pattern_destroy(g);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_set_line_width(cr, 0.8);
    cairo_stroke(cr);
    /* Ticks at both ends and at the powers of 10 between them that leave
     * room for their labels. */
    char b[32];
    double ty = by + h + fs * 0.5, room = fs * 5;
    int e0 = (int)ceil(log10(lo) - 1e-9), e1 = (int)floor(log10(hi) + 1e-9);
    int step = (e1 - e0) / 6 + 1, nt = 0;
    double tv[16];
    tv[nt++] = lo;
    for (int e = e0; e <= e1 && nt < 14; e += step)
        tv[nt++] = pow(10, e);
    if (hi > lo)
        tv[nt++] = hi;
    double last = -INFINITY;
    for (int i = 0; i < nt; i++) {
        double tx = x + w * plot_logpos(tv[i], lo, hi);
        int end = i == 0 || (i == nt - 1 && hi > lo);
        if (!end && (tx - last < room || x + w - tx < room))
            continue;
        if (i == nt - 1 && hi > lo && tx - last < room * 0.6)
            continue;
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        cairo_move_to(cr, tx, by + h);
        cairo_line_to(cr, tx, by + h + fs * 0.3);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        plot_text(pl, tx, ty, fs, i == 0 ? 0 : end ? 1 : 0.5, 0, 0, 0,
                  plot_bytes(tv[i], b, sizeof b));
        last = tx;
    }
    double used = by + h + fs * 1.9 - y;
    plot_item(pl, TOPOMAP_PLOT_ITEM_LEGEND, 0, 0, 0, x, y, w, used);
    return used;
}

void plot_hgrid(struct plot *pl, double x, double w, double gy, double fs, int strong,
                const char *label)
{
    cairo_t *cr = pl->cr;
    if (strong)
        cairo_set_source_rgb(cr, 0, 0, 0);
    else
        cairo_set_source_rgb(cr, 0.87, 0.87, 0.87);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, x, gy);
    cairo_line_to(cr, x + w, gy);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    plot_text(pl, x - fs * 0.4, gy, fs, 1, 0.5, 0, 0, label);
}
