/* A user's program against the installed libsteer: steps a world with one vehicle
 * and round-trips a Hello through the wire format. */
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
	const uint8_t *msg;
	size_t len;
	steer_ClientMessage m;
	char err[256];
	bool ok = steer_wire_hello(&frame, "consumer") == STEER_OK &&
	          steer_framer_feed(&f, (const uint8_t *)frame.data, frame.len) == frame.len &&
	          steer_framer_next(&f, &msg, &len, err, sizeof err) == STEER_OK && msg &&
	          steer_wire_decode_client(msg, len, &m, err, sizeof err) == STEER_OK &&
	          m.which_msg == steer_ClientMessage_hello_tag;
	printf("hello %s\n", ok ? m.msg.hello.client : "failed");
	steer_framer_free(&f);
	steer_strbuf_free(&frame);
	return ok ? 0 : 1;
}
