/* objwrite.c -- a navmesh as Wavefront OBJ text (for Blender, RecastDemo and our
 * own OBJ reader): per tile its vertices (and, for detail output, its
 * detail vertices) once, then one face per polygon or per detail
 * triangle, in the tiles' own vertex order: by the right-hand rule their
 * normals point up (+Y), so OBJ readers see an up-facing surface. Off-mesh connections are "l" lines between their two
 * end points (readers of surfaces ignore them). */
#include "nm_debug.h"

static int poly_wanted(const nm_tile *t, const nm_poly *p, const nm_obj_opts *o) {
  return !o->use_box || nm_poly_in_box(t, p, o->bmin, o->bmax);
}

static void put_vertex(nm_text *out, const float *v) {
  nm_text_put(out, "v ", 2);
  nm_text_float(out, v[0]);
  nm_text_put(out, " ", 1);
  nm_text_float(out, v[1]);
  nm_text_put(out, " ", 1);
  nm_text_float(out, v[2]);
  nm_text_put(out, "\n", 1);
}

/* Index (1-based, in the file) of the vertex a pointer into the tile's
 * vertices or detail vertices stands for; base: the tile's first. */
static unsigned long vertex_index(const nm_tile *t, const float *v, unsigned long base) {
  if (v >= t->verts && v < t->verts + 3 * t->header->vert_count)
    return base + (unsigned long)((v - t->verts) / 3);
  return base + (unsigned long)t->header->vert_count + (unsigned long)((v - t->dverts) / 3);
}

/* The faces of one polygon: its outline, or its detail triangles. */
static void put_faces(nm_text *out, const nm_tile *t, const nm_poly *p, int detail, unsigned long base) {
  int i, j;
  if (nm_poly_type(p) == NM_POLYTYPE_OFFMESH) {
    nm_text_put(out, "l ", 2);
    nm_text_uint(out, base + p->verts[0]);
    nm_text_put(out, " ", 1);
    nm_text_uint(out, base + p->verts[1]);
    nm_text_put(out, "\n", 1);
  } else if (!detail) {
    nm_text_put(out, "f", 1);
    for (j = 0; j < p->vert_count; j++) {
      nm_text_put(out, " ", 1);
      nm_text_uint(out, base + p->verts[j]);
    }
    nm_text_put(out, "\n", 1);
  } else {
    for (i = 0; i < nm_detail_tri_count(t, p); i++) {
      const float *v[3];
      nm_detail_tri(t, p, i, v);
      nm_text_put(out, "f", 1);
      for (j = 0; j < 3; j++) {
        nm_text_put(out, " ", 1);
        nm_text_uint(out, vertex_index(t, v[j], base));
      }
      nm_text_put(out, "\n", 1);
    }
  }
}

/* One tile: a group line, its vertices, its wanted polygons' faces; *base
 * advances past the vertices written (none when no polygon is wanted). */
static void put_tile(nm_text *out, const nm_tile *t, const nm_obj_opts *o, unsigned long *base) {
  const nm_tile_header *h = t->header;
  int i, any = 0;
  for (i = 0; i < h->poly_count && !any; i++) any = poly_wanted(t, &t->polys[i], o);
  if (!any) return;
  nm_text_str(out, "g tile_");
  nm_text_int(out, h->x);
  nm_text_put(out, "_", 1);
  nm_text_int(out, h->y);
  nm_text_put(out, "_", 1);
  nm_text_int(out, h->layer);
  nm_text_put(out, "\n", 1);
  for (i = 0; i < h->vert_count; i++) put_vertex(out, &t->verts[i * 3]);
  if (o->detail)
    for (i = 0; i < h->detail_vert_count; i++) put_vertex(out, &t->dverts[i * 3]);
  for (i = 0; i < h->poly_count; i++)
    if (poly_wanted(t, &t->polys[i], o)) put_faces(out, t, &t->polys[i], o->detail, *base);
  *base += (unsigned long)h->vert_count + (o->detail ? (unsigned long)h->detail_vert_count : 0);
}

nm_status nm_navmesh_to_obj(const nm_navmesh *mesh, const nm_obj_opts *opts, void **text, size_t *len) {
  nm_obj_opts o;
  nm_text out;
  unsigned long base = 1;
  int i;
  if (!mesh || !text || !len) return NM_ERR_PARAM;
  *text = NULL;
  *len = 0;
  memset(&o, 0, sizeof o);
  if (opts) o = *opts;
  for (i = 0; i < 3; i++) /* infinite bounds are fine (no limit), NaN is not */
    if (o.use_box && (o.bmin[i] != o.bmin[i] || o.bmax[i] != o.bmax[i])) return NM_ERR_PARAM;
  nm_text_init(&out, &mesh->alloc);
  nm_text_str(&out, o.detail ? "# navmesh detail triangles\n" : "# navmesh polygons\n");
  for (i = 0; i < mesh->top; i++)
    if (mesh->tiles[i].header) put_tile(&out, &mesh->tiles[i], &o, &base);
  if (!out.failed) { /* exactly len bytes, as nm_free_bytes frees them */
    char *exact = (char *)nm_realloc(&mesh->alloc, out.buf, out.cap, out.len);
    if (exact) {
      *text = exact;
      *len = out.len;
      return NM_OK;
    }
  }
  nm_text_free(&out);
  return NM_ERR_NOMEM;
}
