/* The server's replies read as JSON (jansson), not searched as text: a key is a
 * member of the object it names, never a match inside another key, a string or a
 * nested object. */
#ifndef TUI_JSON_H
#define TUI_JSON_H

#include <jansson.h>
#include <stdbool.h>

/* The reply's JSON (the caller's: json_decref it), or NULL when it is not JSON. */
json_t *tui_json_parse(const char *text);
/* The number that is obj's member key; false when obj is not an object, or has no
 * such member, or it is not a number. */
bool tui_json_number(const json_t *obj, const char *key, double *out);
/* Whether obj's member key is the string s. */
bool tui_json_string_is(const json_t *obj, const char *key, const char *s);

#endif
