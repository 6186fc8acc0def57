/* The server's side of the wire: the messages it encodes (Welcome, Reply, Notice,
 * Geometry, the three snapshot kinds), the client messages it decodes and turns into
 * commands and views, and the density cells. Not libsteer's API, whose wire part
 * (steer/wire.h) is what a client needs. */
#ifndef STEER_SERVE_H
#define STEER_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "steer/command.h"
#include "steer/wire.h"

typedef struct steer_welcome_info {
	/* NULL: say nothing about the world (a private server, before the token): width,
	 * height, edges and both rates are left 0. */
	const steer_world_config *cfg;
	double snapshot_rate;
} steer_welcome_info;

/* Each encoder appends one delimited frame to out and returns STEER_OK; NOMEM when
 * memory runs out, INVALID when the message cannot be encoded (what it was given
 * is out of range). INVALID appends nothing; after NOMEM out may hold part of a
 * frame (and its oom flag set): discard it. */
steer_status steer_wire_welcome(steer_strbuf *out, const steer_welcome_info *info);
steer_status steer_wire_reply(steer_strbuf *out, uint32_t request_id, const steer_reply *r);
/* A Notice: text (cut to 255 bytes) for a client's message line. */
steer_status steer_wire_notice(steer_strbuf *out, const char *text);
/* The Geometry message: every wall and polygon of w, whole, with the world's
 * geometry version (steer_world_geometry_version) and contain rule. */
steer_status steer_wire_geometry(steer_strbuf *out, const steer_world *w);
/* The world cut to view (plus a margin so things entering the edge are drawn), or
 * all of it. scratch holds the index list between calls to avoid reallocating. */
steer_status steer_wire_snapshot(steer_strbuf *out, const steer_world *w, bool paused,
                                 const steer_view *view, uint32_t **scratch, size_t *scratch_cap);
/* The same message for vehicles already chosen: idx[0..n) are world indices (those
 * of view, from steer_interest_collect), sent in that order. */
steer_status steer_wire_snapshot_of(steer_strbuf *out, const steer_world *w, bool paused,
                                    const steer_view *view, const uint32_t *idx, size_t n);

/* Decodes one ClientMessage frame body: STEER_OK, or INVALID with a message in err
 * on malformed input. */
steer_status steer_wire_decode_client(const uint8_t *msg, size_t len, steer_ClientMessage *out,
                                      char *err, size_t errlen);
/* nanopb ends a string field at its first NUL, so "list\0garbage" would decode as
 * "list": STEER_OK when no string in the frame m was decoded from holds one, else
 * INVALID with a message in err. */
steer_status steer_wire_client_strings_ok(const uint8_t *msg, size_t len, steer_ClientMessage *m,
                                          char *err, size_t errlen);
/* A Command message to the core's command struct (text line, or name + args):
 * STEER_OK, or INVALID (NOMEM when memory runs out) with a message in err. */
steer_status steer_wire_to_command(const steer_Command *c, steer_command *cmd, char *err,
                                   size_t errlen);
/* The words steer_wire_to_command gives the parser, joined by single spaces and
 * appended to line (the journal's record of the command). STEER_OK, or INVALID/NOMEM
 * (line's oom flag may be set instead). */
steer_status steer_wire_command_words(const steer_Command *c, steer_strbuf *line);
/* A Viewport message to a view: STEER_OK, or INVALID (message in err) when it is not
 * a finite, non-empty rectangle. */
steer_status steer_wire_to_view(const steer_Viewport *v, steer_view *out, char *err, size_t errlen);

/* A Viewport message's compact request: STEER_OK, or INVALID (message in err) when
 * compact is asked without a rectangle, with a map area out of
 * 1..STEER_COMPACT_MAX_CELLS, or for a view so thin that its margin would not fit the
 * quantized range. */
steer_status steer_wire_to_compact(const steer_Viewport *v, steer_compact_req *out, char *err,
                                   size_t errlen);

/* Quantizes the vehicles idx[0..n) of w, which must be in ascending id order
 * (steer_interest_collect with STEER_ORDER_ID), for view at cols x rows. STEER_OK,
 * NOMEM when memory runs out, or INVALID when the ids are not ascending. */
steer_status steer_compact_frame_build(steer_compact_frame *f, const steer_world *w,
                                       const steer_view *view, uint32_t cols, uint32_t rows,
                                       const uint32_t *idx, size_t n, uint64_t seq);

/* Appends one delimited ServerMessage holding a CompactSnapshot of f: a delta against
 * base when base is compatible, else a key frame (base NULL or not). Obstacles and
 * routes come from w, which must be in the state f was built from. STEER_OK, NOMEM
 * or INVALID, as the other encoders. */
steer_status steer_wire_compact(steer_strbuf *out, steer_compact_scratch *sc, const steer_world *w,
                                bool paused, const steer_compact_frame *f,
                                const steer_compact_frame *base);

/* Whether a compact request whose view holds n vehicles (with its margin) is
 * answered with density. was_dense: the last answer to this client was; in auto
 * mode it then stays density until the view holds at most half as many vehicles
 * as cells, so a count hovering at the threshold does not flip the picture. */
bool steer_density_wanted(const steer_compact_req *req, size_t n, bool was_dense);

/* One view's vehicles counted into the cols x rows cells laid over it, with the sum
 * of their unit headings per cell, and those cells encoded (DensitySnapshot.cells).
 * Server side. Arrays owned: init once, rebuild each tick, free once. */
typedef struct steer_density_cell {
	double hx, hy; /* sum of unit headings */
	uint32_t count;
} steer_density_cell;

typedef struct steer_density {
	steer_view view;
	uint32_t cols, rows;
	uint32_t in_view, max_count;
	steer_density_cell *cell; /* cols * rows, row-major */
	size_t cap;
	steer_blob cells;
} steer_density;

void steer_density_init(steer_density *d);
void steer_density_free(steer_density *d);
/* Counts the vehicles idx[0..n) of w that lie inside view (a set rectangle) into
 * cols x rows cells (each 1..STEER_COMPACT_MAX_CELLS, at most STEER_DENSITY_MAX_CELLS
 * in all). STEER_OK, NOMEM when memory runs out, or INVALID when the grid or view
 * is out of range. */
steer_status steer_density_build(steer_density *d, const steer_world *w, const steer_view *view,
                                 uint32_t cols, uint32_t rows, const uint32_t *idx, size_t n);
/* Encodes d's cells again after they were changed in place (the parts of one world
 * added up: cluster/ranks.c), with in_view and max_count. STEER_OK or NOMEM. */
steer_status steer_density_encode(steer_density *d);
/* Appends one delimited ServerMessage holding the DensitySnapshot of d, with the
 * obstacles of w touching its view. STEER_OK, NOMEM or INVALID, as the other
 * encoders. */
steer_status steer_wire_density(steer_strbuf *out, const steer_world *w, bool paused,
                                const steer_density *d);
/* Appends frame (one whole frame from steer_wire_density) with vehicle id of w as
 * its DensitySnapshot.picked: one client's pick on a frame shared by its view,
 * without counting or encoding the cells again. STEER_OK; NOENT, with nothing
 * appended, when there is no such vehicle; INVALID, with nothing appended, when
 * frame is not such a frame; NOMEM when memory runs out. */
steer_status steer_wire_density_picked(steer_strbuf *out, const uint8_t *frame, size_t len,
                                       const steer_world *w, uint32_t id);

#endif
