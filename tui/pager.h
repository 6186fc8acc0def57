/* A scrollable page of text lines shown over the map: the key help, the command help,
 * a long reply. Plain data and functions, no terminal: lines wrap at word boundaries
 * to the width they are shown at, and the scroll position stays in range. */
#ifndef TUI_PAGER_H
#define TUI_PAGER_H

#include <stdbool.h>
#include <stddef.h>

typedef struct tui_pager {
	bool open;
	char title[96];
	char **lines; /* owned, each NUL-terminated without '\n' */
	size_t n, cap;
	int top; /* first visual (wrapped) row shown */
} tui_pager;

/* Where the overlay goes on a cols x rows screen: a frame with a title row and a
 * footer row around text_rows rows of text_cols columns, leaving the last two rows
 * (status and message lines) uncovered when the screen has more than four. */
typedef struct tui_pager_box {
	int left, top, cols, rows;
	int text_left, text_top, text_cols, text_rows;
} tui_pager_box;

#define TUI_PAGER_MAX_COLS 80 /* wider screens get a centred box this wide */

void tui_pager_init(tui_pager *p);
/* Empties the page and names it; it opens at the top. */
void tui_pager_reset(tui_pager *p, const char *title);
void tui_pager_free(tui_pager *p);
/* Appends text, one line per '\n'-separated piece. 0, or -1 when memory runs out. */
int tui_pager_add(tui_pager *p, const char *text);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int tui_pager_addf(tui_pager *p, const char *fmt, ...);

/* Appends a JSON value laid out for reading: an object or array longer than a line
 * gets one member a line, indented; short ones stay on one line, as compact JSON; an
 * array of numbers and strings is one paragraph. Text that is not JSON is added as
 * it came. */
int tui_pager_add_json(tui_pager *p, const char *json);

tui_pager_box tui_pager_layout(const tui_pager *p, int cols, int rows);
/* How many rows the text takes wrapped to width columns. */
int tui_pager_height(const tui_pager *p, int width);
/* Visual row r of the text wrapped to width, into out (width + 1 bytes); "" past the
 * end. */
void tui_pager_row(const tui_pager *p, int width, int r, char *out);
/* Scrolls by delta rows (INT_MIN / INT_MAX for the top / the end), kept in range for a
 * box of text_cols x text_rows. */
void tui_pager_scroll(tui_pager *p, int delta, int text_cols, int text_rows);

#endif
