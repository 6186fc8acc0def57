// A C++ program against the installed libsteer: the public headers declare C
// linkage, so their functions link from C++.
#include <cstdio>
#include <steer/world.h>

int main()
{
	steer_world_config cfg = steer_world_config_default();
	steer_world *w = steer_world_create(&cfg);
	uint32_t id = 0;
	if (!w || steer_vehicle_add(w, v2(10, 20), v2(30, 0), nullptr, &id) != STEER_OK ||
	    steer_world_step(w) != STEER_OK)
		return 1;
	const steer_vehicles *v = steer_world_vehicles(w);
	std::printf("vehicle %u at %.3f %.3f\n", id, v->px[0], v->py[0]);
	steer_world_destroy(w);
	return 0;
}
