/* A user's program against the installed libsteer: steps a world with one vehicle
 * and frames a Hello as a client sends it. */
#include <stdio.h>
#include <steer/wire.h>
#include <string.h>

int main(void)
{
	steer_world_config cfg = steer_world_config_default();
	steer_world *w = steer_world_create(&cfg);
	uint32_t id = 0;
	if (!w || steer_vehicle_add(w, v2(10, 20), v2(30, 0), NULL, &id) != STEER_OK ||
	    steer_world_step(w) != STEER_OK)
		return 1;
	const steer_vehicles *v = steer_world_vehicles(w);
	printf("vehicle %u at %.3f %.3f\n", id, v->px[0], v->py[0]);
	steer_world_destroy(w);

	steer_strbuf frame;
	steer_strbuf_init(&frame);
	steer_framer f;
	steer_framer_init(&f, STEER_MAX_CLIENT_FRAME);
	const uint8_t *msg = NULL;
	size_t len = 0;
	char err[256];
	const char *name = "consumer";
	bool ok = steer_wire_hello(&frame, name) == STEER_OK &&
	          steer_framer_feed(&f, (const uint8_t *)frame.data, frame.len) == frame.len &&
	          steer_framer_next(&f, &msg, &len, err, sizeof err) == STEER_OK && msg;
	/* The message framed back carries the name, as the Hello's client field. */
	bool named = false;
	for (size_t k = 0; ok && k + strlen(name) <= len; k++)
		named = named || !memcmp(msg + k, name, strlen(name));
	printf("hello %s\n", named ? name : "failed");
	steer_framer_free(&f);
	steer_strbuf_free(&frame);
	return named ? 0 : 1;
}
