/*
 * replay.h: memboot.selftest=replay, a Linux page-allocator trace replayed
 * on boot memory by every CPU (kernel/selftest/replay.c).
 */
#ifndef MEMBOOT_KERNEL_SELFTEST_REPLAY_H
#define MEMBOOT_KERNEL_SELFTEST_REPLAY_H

#include <stdbool.h>

#include "arch/fwcfg.h"

/* Replay the trace in fw_cfg file @blob; *skipped when there is none.
 * False if the file is malformed, there is no memory for it, or an event
 * went missing. Emits a `replay` record. */
bool replay_selftest(const struct fwcfg_blob *blob, bool *skipped);

#endif
