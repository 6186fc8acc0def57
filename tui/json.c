#include "json.h"

#include <math.h>
#include <string.h>

json_t *tui_json_parse(const char *text)
{
	json_error_t err;
	return json_loads(text, JSON_DECODE_ANY, &err);
}

bool tui_json_number(const json_t *obj, const char *key, double *out)
{
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
	if (!json_is_number(v))
		return false;
	double d = json_number_value(v);
	if (!isfinite(d))
		return false;
	*out = d;
	return true;
}

bool tui_json_string_is(const json_t *obj, const char *key, const char *s)
{
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
	return json_is_string(v) && !strcmp(json_string_value(v), s);
}
