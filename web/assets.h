/* The page's files, built into steer-server (web/CMakeLists.txt, embed.cmake). */
#ifndef STEER_WEB_ASSETS_H
#define STEER_WEB_ASSETS_H

#include <stddef.h>

typedef struct steer_web_asset {
	const char *path; /* as requested: "/index.html" */
	const char *type; /* its Content-Type */
	const unsigned char *data;
	size_t len;
} steer_web_asset;

extern const steer_web_asset steer_web_assets[];
extern const size_t steer_web_asset_count;

#endif
