/*
 * syscalls.c: the few system calls newlib needs in a freestanding kernel.
 *
 * newlib's x86_64-elf configuration defines MISSING_SYSCALL_NAMES, so its
 * reentrant wrappers call sbrk, write, ... without a leading underscore;
 * its aarch64-elf configuration does not, and calls _sbrk, _write, ...:
 * each function below has both names (the underscored one an alias).
 * There are no files: stdout and stderr go to the console, everything else
 * fails with EBADF. sbrk hands out a fixed 64 KiB early heap in .bss; the page
 * allocators never use it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "kernel/services/console.h"
#include "kernel/services/exit.h"

#undef errno
extern int errno;

/* No kernel code calls malloc (the kernel's own snprintf replaced newlib's
 * printf family, the one user): the heap stays for newlib functions that
 * might, and is kept small because .bss is cleared at every boot (a MiB of
 * it was a quarter of that clear). */
#define EARLY_HEAP_BYTES (64u << 10)
static uint8_t early_heap[EARLY_HEAP_BYTES] __attribute__((aligned(4096)));
static size_t early_heap_used;

void *sbrk(ptrdiff_t incr);
int write(int fd, const void *buf, size_t len);
int read(int fd, void *buf, size_t len);
int close(int fd);
int fstat(int fd, struct stat *st);
int isatty(int fd);
off_t lseek(int fd, off_t off, int whence);
int kill(int pid, int sig);
int getpid(void);
void _exit(int code);

void *sbrk(ptrdiff_t incr)
{
	if (incr < 0 ? (size_t)-incr > early_heap_used
		     : (size_t)incr > EARLY_HEAP_BYTES - early_heap_used) {
		errno = ENOMEM;
		return (void *)-1;
	}
	void *old = early_heap + early_heap_used;
	early_heap_used += (size_t)incr;
	return old;
}

int write(int fd, const void *buf, size_t len)
{
	if (fd != 1 && fd != 2) {
		errno = EBADF;
		return -1;
	}
	console_write(buf, len);
	return (int)len;
}

int read(int fd, void *buf, size_t len)
{
	errno = EBADF;
	return -1;
}

int close(int fd)
{
	errno = EBADF;
	return -1;
}

int fstat(int fd, struct stat *st)
{
	st->st_mode = S_IFCHR;   /* the console is a character device */
	return 0;
}

int isatty(int fd)
{
	return fd <= 2;
}

off_t lseek(int fd, off_t off, int whence)
{
	return 0;
}

int kill(int pid, int sig)
{
	errno = EINVAL;
	return -1;
}

int getpid(void)
{
	return 1;
}

void _exit(int code)
{
	kernel_exit(code == 0 ? EXIT_OK : EXIT_PANIC, "libc exit");
}

/* aarch64-elf's names for the same calls (see the top of this file). */
void *_sbrk(ptrdiff_t incr) __attribute__((alias("sbrk")));
int _write(int fd, const void *buf, size_t len) __attribute__((alias("write")));
int _read(int fd, void *buf, size_t len) __attribute__((alias("read")));
int _close(int fd) __attribute__((alias("close")));
int _fstat(int fd, struct stat *st) __attribute__((alias("fstat")));
int _isatty(int fd) __attribute__((alias("isatty")));
off_t _lseek(int fd, off_t off, int whence) __attribute__((alias("lseek")));
int _kill(int pid, int sig) __attribute__((alias("kill")));
int _getpid(void) __attribute__((alias("getpid")));
