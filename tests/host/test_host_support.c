/*
 * test_host_support.c: the one host shim (tests/host/host_support.c) and its
 * options: what the tests, the fuzzers, the benchmarks and memboot-topo each
 * get from log_printf(), record_emit() and panic().
 *
 * stdout and stderr are captured by pointing their file descriptors at a
 * temporary file for the length of one call; panic() runs in a child.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernel/services/panic.h"
#include "kernel/services/report/record.h"
#include "tests/host/host_support.h"

#define NUMA_LINE "MEMBOOT {\"event\":\"numa\",\"nodes\":2}"

struct capture {
	int fd, saved;
	FILE *file;
	char text[1024];
};

static void capture_begin(struct capture *c, int fd)
{
	fflush(NULL);
	c->fd = fd;
	c->file = tmpfile();
	assert_non_null(c->file);
	c->saved = dup(fd);
	assert_true(c->saved >= 0);
	assert_true(dup2(fileno(c->file), fd) >= 0);
}

static const char *capture_end(struct capture *c)
{
	size_t n;

	fflush(NULL);
	assert_true(dup2(c->saved, c->fd) >= 0);
	close(c->saved);
	rewind(c->file);
	n = fread(c->text, 1, sizeof(c->text) - 1, c->file);
	c->text[n] = '\0';
	fclose(c->file);
	return c->text;
}

/* Logs an INFO line, a WARN line and a record, capturing stdout and stderr. */
static void emit_three(struct capture *out, struct capture *err)
{
	struct record r;

	capture_begin(out, STDOUT_FILENO);
	capture_begin(err, STDERR_FILENO);
	log_printf(LOG_INFO, "info %d", 1);
	log_printf(LOG_WARN, "warn %s", "two");
	rec_begin(&r, "numa");
	rec_u64(&r, "nodes", 2);
	record_emit(&r);
	capture_end(err);
	capture_end(out);
}

static int reset(void **state)
{
	host_shim_configure(&HOST_SHIM_DEFAULT);
	host_log_reset();
	unsetenv("MEMBOOT_HOST_VERBOSE");
	return 0;
}

/* Tests: every line kept, the record as an INFO line, nothing printed. */
static void test_default_keeps_lines_prints_nothing(void **state)
{
	struct capture out, err;

	emit_three(&out, &err);
	assert_string_equal(out.text, "");
	assert_string_equal(err.text, "");
	assert_int_equal(host_log_total(), 3);
	assert_string_equal(host_log_line(0), "info 1");
	assert_string_equal(host_log_line(1), "warn two");
	assert_string_equal(host_log_line(2), NUMA_LINE);
	assert_int_equal(host_log_count(LOG_INFO), 2);
	assert_int_equal(host_log_count(LOG_WARN), 1);
	assert_true(host_log_contains("\"nodes\":2"));
}

/* MEMBOOT_HOST_VERBOSE: every line on stderr with its level, still kept. */
static void test_verbose_echoes_with_levels(void **state)
{
	struct capture out, err;
	char want[256];

	setenv("MEMBOOT_HOST_VERBOSE", "1", 1);
	emit_three(&out, &err);
	snprintf(want, sizeof(want), "<%d> info 1\n<%d> warn two\n<%d> %s\n",
		 LOG_INFO, LOG_WARN, LOG_INFO, NUMA_LINE);
	assert_string_equal(err.text, want);
	assert_string_equal(out.text, "");
	assert_int_equal(host_log_total(), 3);
}

/* Benchmarks: warnings and errors on stderr, nothing kept, no record shown. */
static void test_bench_prints_warnings_keeps_nothing(void **state)
{
	struct capture out, err;

	host_shim_configure(&HOST_SHIM_BENCH);
	emit_three(&out, &err);
	assert_string_equal(err.text, "warn two\n");
	assert_string_equal(out.text, "");
	assert_int_equal(host_log_total(), 0);
}

/* memboot-topo: console lines (warnings on stderr), records on stdout. */
static void test_tool_prints_like_a_console(void **state)
{
	struct capture out, err;

	host_shim_configure(&(struct host_shim_options){
		.echo = HOST_ECHO_CONSOLE, .records = HOST_RECORDS_STDOUT,
		.panic_prefix = "tool: ", .panic_exit = 70 });
	emit_three(&out, &err);
	assert_string_equal(out.text, "info 1\n" NUMA_LINE "\n");
	assert_string_equal(err.text, "warn two\n");
	assert_int_equal(host_log_total(), 0);
}

/* memboot-topo --json: the records' JSON alone, no line. */
static void test_tool_json_prints_records_only(void **state)
{
	struct capture out, err;

	host_shim_configure(&(struct host_shim_options){
		.echo = HOST_ECHO_NONE, .records = HOST_RECORDS_JSON,
		.panic_prefix = "tool: ", .panic_exit = 70 });
	emit_three(&out, &err);
	assert_string_equal(out.text, "{\"event\":\"numa\",\"nodes\":2}\n");
	assert_string_equal(err.text, "");
}

/* Runs panic() in a child; returns its wait status and its stderr. */
static int panic_in_child(const struct host_shim_options *opts, char *err, size_t len)
{
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], STDERR_FILENO);
		if (opts)
			host_shim_configure(opts);
		panic("bad %s %d", "value", 7);
	}
	close(fds[1]);
	/* Until the child is gone: stderr is unbuffered, one write per part. */
	for (size_t got = 0;; got += (size_t)n) {
		n = read(fds[0], err + got, len - 1 - got);
		if (n <= 0) {
			err[got] = '\0';
			break;
		}
	}
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

/* Tests and fuzzers: panic() aborts (the crash a fuzzer reports). */
static void test_panic_aborts_by_default(void **state)
{
	char err[256];
	int status = panic_in_child(NULL, err, sizeof(err));

	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	assert_string_equal(err, "panic: bad value 7\n");
}

/* A tool: its own prefix and exit status. */
static void test_panic_exits_with_the_tool_status(void **state)
{
	char err[256];
	int status = panic_in_child(&(struct host_shim_options){
		.echo = HOST_ECHO_CONSOLE, .records = HOST_RECORDS_STDOUT,
		.panic_prefix = "tool: internal error: ", .panic_exit = 70 }, err, sizeof(err));

	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 70);
	assert_string_equal(err, "tool: internal error: bad value 7\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_default_keeps_lines_prints_nothing, reset),
		cmocka_unit_test_setup(test_verbose_echoes_with_levels, reset),
		cmocka_unit_test_setup(test_bench_prints_warnings_keeps_nothing, reset),
		cmocka_unit_test_setup(test_tool_prints_like_a_console, reset),
		cmocka_unit_test_setup(test_tool_json_prints_records_only, reset),
		cmocka_unit_test_setup(test_panic_aborts_by_default, reset),
		cmocka_unit_test_setup(test_panic_exits_with_the_tool_status, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
