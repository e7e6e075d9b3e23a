/*
 * panic.h: fatal errors and assertions.
 *
 * ASSERT is always on: it guards boot invariants whose failure would make
 * every later figure wrong. DEBUG_ASSERT guards hot paths and compiles away in
 * release builds (MODE=release defines NDEBUG). Messages name the function and
 * the offending value so a log line alone is enough to start debugging.
 */
#ifndef MEMBOOT_KERNEL_PANIC_H
#define MEMBOOT_KERNEL_PANIC_H

__attribute__((noreturn, format(printf, 1, 2)))
void panic(const char *fmt, ...);

/* A CPU exception arch could not handle (its trap handler has printed the
 * details): the boot ends with the exception status and @what (the
 * exception's name) as the reason. */
__attribute__((noreturn)) void panic_exception(const char *what);
/* An exception while that report runs: leave at once with the exception
 * status, printing nothing more. */
__attribute__((noreturn)) void panic_exception_nested(void);

#define ASSERT(cond, fmt, ...)                                              \
	do {                                                                \
		if (__builtin_expect(!(cond), 0))                           \
			panic("%s:%d: %s: assertion '%s' failed: " fmt,     \
			      __FILE__, __LINE__, __func__, #cond,          \
			      ##__VA_ARGS__);                                \
	} while (0)

#ifdef NDEBUG
#define DEBUG_ASSERT(cond, fmt, ...) do { (void)sizeof(cond); } while (0)
#else
#define DEBUG_ASSERT(cond, fmt, ...) ASSERT(cond, fmt, ##__VA_ARGS__)
#endif

#endif
