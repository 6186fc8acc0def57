/* STEER_API marks what libsteer exports: the functions and tables its public headers
 * declare, and nothing else (the library is built with -fvisibility=hidden). */
#ifndef STEER_API_H
#define STEER_API_H

#if defined(__GNUC__) || defined(__clang__)
#define STEER_API __attribute__((visibility("default")))
#else
#define STEER_API
#endif

#endif
