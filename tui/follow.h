/* Following a vehicle with the camera. The server culls a snapshot to the view, a
 * plain rectangle of world coordinates, so a followed vehicle that wraps from one
 * edge of the world to the other leaves the view it was centred in and is missing
 * from the next snapshot. Its last position and velocity say where it went: the
 * camera moves there, the next view request covers it, and it is back. One that
 * vanishes far from every edge was removed: it is dropped at once. */
#ifndef TUI_FOLLOW_H
#define TUI_FOLLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "steer/wire.h"

#define TUI_FOLLOW_LOST_S  2.0 /* predict no longer than this without seeing it */
#define TUI_FOLLOW_SLACK_S 0.5 /* how much longer than it was unseen it may have driven */

typedef struct tui_follow {
	uint32_t id; /* 0: not following */
	bool seen;
	double x, y, vx, vy;
	uint64_t tick; /* when last seen */
} tui_follow;

void tui_follow_start(tui_follow *f, uint32_t id);
/* Where to centre for this snapshot: the vehicle, or in a wrapping world its
 * predicted position when it is missing. false when it is lost (not in the snapshot
 * and no prediction). *predicted tells which. */
bool tui_follow_centre(tui_follow *f, const steer_snapshot *s, double *cx, double *cy,
                       bool *predicted);

#endif
