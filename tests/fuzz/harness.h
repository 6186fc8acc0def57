/* The per-input logic of the fuzz targets, shared by the libFuzzer entry points
 * (fuzz_*.c) and the plain regression test (tests/test_fuzz_regressions.c), so a
 * saved crash replays through exactly the code that found it.
 *
 * Each function takes one input, returns 0, and abort()s (after a message on stderr)
 * when the code under test breaks one of its promises; sanitizers report the rest. */
#ifndef STEER_FUZZ_HARNESS_H
#define STEER_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

/* Input layout: byte 0 picks the frame limit (bits 3-4) and how many chunk sizes
 * follow (bits 0-2, plus one); those bytes are the sizes the stream is fed in (0: all
 * that is left); the rest is the byte stream. */
int harness_framer(const uint8_t *data, size_t size);
/* Input: one ClientMessage frame body (no length prefix). */
int harness_client_message(const uint8_t *data, size_t size);
/* Input: the bytes a client sends to the text port. */
int harness_text_command(const uint8_t *data, size_t size);
/* Input: a save file; also tried re-sealed with a correct end line. */
int harness_savefile(const uint8_t *data, size_t size);
/* Input: byte 0 a destination size minus one, byte 1 a cut limit, then text: the
 * UTF-8 escaping and cutting of everything the server sends or logs. */
int harness_utf8(const uint8_t *data, size_t size);

/* Input: byte 0 bit 0 puts a valid header first; the rest is a journal log: the
 * record codec and the damage scan of recovery. */
int harness_journal(const uint8_t *data, size_t size);

/* Reports a broken invariant, naming the input, and aborts (libFuzzer and ctest
 * both record it as a crash with the input). */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2), noreturn))
#endif
void harness_violated(const char *fmt, ...);

/* What is being run, for the failure message (a file name in the regression test);
 * may stay NULL. */
extern const char *harness_input_name;

#endif
