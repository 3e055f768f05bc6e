/* SPDX-License-Identifier: BSD-3-Clause */
/* pngcmp A B: compare two PNG pictures pixel by pixel (decoded with cairo,
 * so that two encoders of the same pixels compare equal). Exit 0: same size
 * and pixels; 1: they differ (one line says how much); 2: unreadable. Used
 * by tests/pictures.sh. */
#include <cairo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static cairo_surface_t *load(const char *path)
{
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        fprintf(stderr, "pngcmp: %s: %s\n", path, cairo_status_to_string(cairo_surface_status(s)));
        exit(2);
    }
    return s;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: pngcmp A.png B.png\n");
        return 2;
    }
    cairo_surface_t *a = load(argv[1]), *b = load(argv[2]);
    int w = cairo_image_surface_get_width(a), h = cairo_image_surface_get_height(a);
    if (w != cairo_image_surface_get_width(b) || h != cairo_image_surface_get_height(b)) {
        printf("sizes differ: %dx%d against %dx%d\n", w, h, cairo_image_surface_get_width(b),
               cairo_image_surface_get_height(b));
        return 1;
    }
    const unsigned char *da = cairo_image_surface_get_data(a), *db = cairo_image_surface_get_data(b);
    int sa = cairo_image_surface_get_stride(a), sb = cairo_image_surface_get_stride(b);
    long diff = 0;
    int most = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t p = *(const uint32_t *)(da + (size_t)y * sa + 4 * x),
                     q = *(const uint32_t *)(db + (size_t)y * sb + 4 * x);
            if (p == q)
                continue;
            diff++;
            for (int s = 0; s < 32; s += 8) {
                int d = abs((int)(p >> s & 255) - (int)(q >> s & 255));
                most = d > most ? d : most;
            }
        }
    if (diff)
        printf("%ld of %ld pixels differ, by up to %d\n", diff, (long)w * h, most);
    cairo_surface_destroy(a);
    cairo_surface_destroy(b);
    return diff != 0;
}
