/* The programs' command lines, read by getopt_long with short options that begin
 * "+:" (stop at the first word that is not an option; ':' for a missing value) and
 * opterr 0, so that each program words its own refusals through this one. */
#ifndef STEER_CLI_H
#define STEER_CLI_H

#include <stddef.h>

#include <getopt.h>

/* What getopt_long's answer `got` ('?' or ':') meant, in words, into out (n bytes):
 * "unknown option '--x'", "--port needs a value", "--verbose takes no value" or
 * "'--check' is ambiguous: --checkpoint, --checkpoint-mb". word is the argument it
 * stopped at (argv[optind - 1]), short its optopt, longs the program's options. */
void steer_cli_refusal(int got, const char *word, int short_opt, const struct option *longs,
                       char *out, size_t n);

/* "--NAME" of the long option at index, into out: the flag a value's message names,
 * however it was spelt (--port 7, --port=7, --po 7). */
const char *steer_cli_flag(const struct option *longs, int index, char *out, size_t n);

#endif
