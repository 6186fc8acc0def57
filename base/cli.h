/* The programs' command lines, read by getopt_long with short options that begin
 * "+:" (stop at the first word that is not an option; ':' for a missing value) and
 * opterr 0, so that each program words its own refusals through this one. */
#ifndef STEER_CLI_H
#define STEER_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include <getopt.h>

/* What getopt_long's answer `got` ('?' or ':') meant, in words, into out (n bytes):
 * "unknown option '--x'", "--port needs a value", "--verbose takes no value" or
 * "'--check' is ambiguous: --checkpoint, --checkpoint-mb". word is the argument it
 * stopped at (argv[optind - 1]), short its optopt, longs the program's options. */
void steer_cli_refusal(int got, const char *word, int short_opt, const struct option *longs,
                       char *out, size_t n);

/* Whether an option's value, taken from the next word (value == argv[next - 1];
 * next is getopt's optind), is rather another option (--token --json: the value
 * forgotten): "--NAME" naming one of longs, or "-X" one of the letters in shorts. A
 * value given after '=' (--token=--json) is the user's word for it, and false. */
bool steer_cli_value_is_option(const char *value, char *const *argv, int next,
                               const struct option *longs, const char *shorts);

/* The refusal of such a value, into out: "--token needs a value, and '--json' is an
 * option (give --token=--json if it is the value)". flag is the option as typed. */
void steer_cli_value_refusal(const char *flag, const char *value, char *out, size_t n);

/* "--NAME" of the long option at index, into out: the flag a value's message names,
 * however it was spelt (--port 7, --port=7, --po 7). */
const char *steer_cli_flag(const struct option *longs, int index, char *out, size_t n);

#endif
