/*
 * dt.h: flattened device trees (Devicetree Specification v0.4, chapter 5),
 * as pure parsers.
 *
 * Overview
 *  - dt_open() checks a blob's header against the bytes there are (@len) and
 *    gives a struct dt_blob: the structure block, the strings block and the
 *    memory reservation block, each bounded. Nothing is trusted beyond what
 *    the header and @len both allow.
 *  - dt_iter_next() walks the structure block one token at a time, without
 *    recursion: a node opens (its name and depth), a property (name, value,
 *    length), a node closes. Every step moves forward by at least one
 *    4-byte token, so no blob makes it loop; a token that would read past
 *    the block, a string offset past the strings block or an unterminated
 *    name ends the walk with it->error set and one warning naming the offset.
 *  - dt_machine_parse() (kernel/firmware/dt_machine.c) reads what memboot
 *    needs of a machine in one struct dt_machine: memory and its nodes, the
 *    reserved ranges, CPUs, distances, PSCI, the timer, the console, /chosen,
 *    QEMU's fw_cfg device,
 *    and the POWER properties (ibm,associativity with FORM1 reference points
 *    or FORM2 tables, ibm,chip-id, RTAS tokens, OPAL).
 *
 * Firmware is expected to be wrong sometimes: every problem is one warning
 * with the prefix "DT: ", naming the node path or offset and the property;
 * the bad part is skipped and what was read before is kept. Nothing here
 * allocates, keeps state between calls or panics on a blob, so the same
 * files build in the kernel, the host tests and the libFuzzer target.
 * Numbers in a blob are big-endian (kernel/firmware/bytes.h).
 */
#ifndef MEMBOOT_KERNEL_FIRMWARE_DT_H
#define MEMBOOT_KERNEL_FIRMWARE_DT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DT_MAGIC 0xd00dfeedu
#define DT_HEADER_BYTES 40
/* Version 16 added nothing we need beyond 17's size_dt_struct; both read. */
#define DT_MIN_VERSION 16
/* Nodes deeper than this are walked over (their tokens checked) but not
 * reported: no real tree comes near it (QEMU's is 4 deep). */
#define DT_MAX_DEPTH 32
/* A node name or path kept, NUL included. */
#define DT_NAME_BYTES 64
#define DT_PATH_BYTES 256

/* Structure block tokens (5.4.1). */
enum {
	DT_TOKEN_BEGIN_NODE = 1,
	DT_TOKEN_END_NODE = 2,
	DT_TOKEN_PROP = 3,
	DT_TOKEN_NOP = 4,
	DT_TOKEN_END = 9,
};

enum dt_status {
	DT_OK = 0,
	DT_ERR_SHORT = -1,      /* fewer bytes than a header, or than totalsize */
	DT_ERR_MAGIC = -2,      /* not 0xd00dfeed */
	DT_ERR_VERSION = -3,    /* version below 16, or last compatible above 17 */
	DT_ERR_LAYOUT = -4,     /* a block outside the blob, overlapping the header, misaligned */
};

/* A checked blob: every block lies inside [base, base + total_bytes). */
struct dt_blob {
	const uint8_t *base;
	uint32_t total_bytes;
	uint32_t version;
	uint32_t boot_cpuid;            /* boot_cpuid_phys: the boot CPU's reg */
	const uint8_t *structs;         /* the structure block */
	uint32_t struct_bytes;
	const char *strings;            /* the strings block */
	uint32_t strings_bytes;
	const uint8_t *rsvmap;          /* the memory reservation block */
	uint32_t rsvmap_bytes;          /* up to the end of the blob */
};

/* Check the header of @blob (@len bytes readable) and fill @dt. One warning
 * for anything but DT_OK. */
int dt_open(struct dt_blob *dt, const void *blob, size_t len);
const char *dt_status_name(int status);

enum dt_token_kind { DT_NODE_BEGIN, DT_NODE_END, DT_PROP };

struct dt_token {
	enum dt_token_kind kind;
	const char *name;       /* node name ("" for the root) or property name */
	const uint8_t *value;   /* DT_PROP: the value's bytes */
	uint32_t len;           /* DT_PROP: their length */
	uint32_t depth;         /* the node's depth (root 0), or the property's node's */
	uint32_t offset;        /* the token's offset in the structure block */
};

struct dt_iter {
	const struct dt_blob *dt;
	uint32_t off;           /* next token, from the start of the structure block */
	uint32_t depth;         /* nodes open */
	bool root_seen;         /* the root node has begun */
	bool done;              /* FDT_END met with every node closed */
	bool error;             /* a malformed token ended the walk (warned) */
};

void dt_iter_init(struct dt_iter *it, const struct dt_blob *dt);
/* The next token into @tok; false at the end or on an error (it->error). */
bool dt_iter_next(struct dt_iter *it, struct dt_token *tok);

/* Entry @idx (from 0) of the memory reservation block: [*start, *start +
 * *bytes). False at its (0, 0) terminator or where the entry would run past
 * the blob. */
bool dt_rsv_entry(const struct dt_blob *dt, uint32_t idx, uint64_t *start, uint64_t *bytes);

/* Property values. */
/* A string property: whether @len bytes at @v hold a NUL-terminated string. */
bool dt_prop_is_string(const uint8_t *v, uint32_t len);
/* Whether the string list @v (@len bytes) contains @s (compatible, ...). */
bool dt_prop_has_string(const uint8_t *v, uint32_t len, const char *s);
/* A number of @cells 32-bit cells (1 or 2) at @v; 0 for other counts. */
uint64_t dt_read_cells(const uint8_t *v, uint32_t cells);

/* ---- the machine, from one blob (kernel/firmware/dt_machine.c) ---- */

#define DT_MAX_MEMS 1024
#define DT_MAX_RSV 64
#define DT_MAX_CPUS 8192
#define DT_MAX_DISTANCES 4096
#define DT_MAX_DOMAINS 256
#define DT_MAX_ASSOC 8          /* associativity levels kept */
#define DT_BOOTARGS_BYTES 2048
#define DT_NO_NODE 0xffffffffu
#define DT_MAX_GICR 8           /* GICv3 redistributor regions kept */

struct dt_mem {
	uint64_t start, end;    /* [start, end), bytes */
	uint32_t node;          /* numa-node-id, primary domain, chip id; DT_NO_NODE */
};

struct dt_cpu {
	uint64_t hwid;          /* reg (arm64 MPIDR affinity; POWER the thread's server number) */
	uint32_t node;          /* as for memory; DT_NO_NODE */
	bool enabled;           /* status absent, "okay" or "ok" */
	bool psci;              /* enable-method "psci" */
};

struct dt_distance {
	uint32_t from, to;      /* node ids as the tree numbers them */
	uint32_t distance;
};

/* The console: /chosen's stdout-path resolved (through /aliases), else the
 * first serial port node met. */
struct dt_serial {
	bool present;
	bool from_stdout_path;
	char compatible[DT_NAME_BYTES];   /* its first compatible string */
	char path[DT_PATH_BYTES];
	uint64_t base;          /* first reg address (the root's cells) */
	uint32_t reg_shift;     /* 16550: register spacing */
	uint32_t reg_io_width;
	uint32_t clock_hz;
	uint32_t baud;          /* from stdout-path's ":115200n8", 0 if not given */
};

/* How a tree numbers NUMA: its own numa-node-id properties (arm64 and
 * others), POWER's ibm,associativity (FORM1 reference points, FORM2 tables),
 * PowerNV's ibm,chip-id, or nothing. */
enum dt_numa_form {
	DT_NUMA_NONE = 0,
	DT_NUMA_NODE_ID,
	DT_NUMA_FORM1,
	DT_NUMA_FORM2,
	DT_NUMA_CHIP_ID,
};

struct dt_machine {
	uint32_t boot_cpuid;
	char model[DT_NAME_BYTES];
	char compatible[DT_NAME_BYTES];   /* the root's first compatible string */
	uint32_t root_address_cells, root_size_cells;

	uint32_t nr_mems;
	uint32_t nr_dropped_mems;         /* beyond DT_MAX_MEMS */
	struct dt_mem mems[DT_MAX_MEMS];

	uint32_t nr_rsv;                  /* memreserve entries and /reserved-memory regs */
	uint32_t nr_dropped_rsv;
	struct dt_mem rsv[DT_MAX_RSV];    /* node unused (DT_NO_NODE) */

	uint32_t nr_cpus;
	uint32_t nr_dropped_cpus;
	uint32_t nr_ignored_cpus;         /* no reg, or a hwid seen before */
	struct dt_cpu cpus[DT_MAX_CPUS];
	uint64_t timebase_hz;             /* a CPU's timebase-frequency (POWER) */
	uint64_t cpu_clock_hz;            /* a CPU's clock-frequency */

	enum dt_numa_form numa_form;
	uint32_t nr_distances;
	uint32_t nr_dropped_distances;
	struct dt_distance distances[DT_MAX_DISTANCES];

	/* POWER: ibm,associativity-reference-points and the FORM2 tables. */
	uint32_t nr_ref_points;
	uint32_t ref_points[DT_MAX_ASSOC];
	uint32_t nr_form2_domains;                /* ibm,numa-lookup-index-table */
	uint32_t form2_domains[DT_MAX_DOMAINS];
	bool form2_distances;                     /* the distance table was read */
	uint8_t form2_distance[DT_MAX_DOMAINS * DT_MAX_DOMAINS];

	bool psci;                        /* a /psci node (arm,psci-0.2 or later, or arm,psci) */
	bool psci_hvc;                    /* method "hvc" (else "smc") */
	bool psci_bad_method;             /* a method that is neither: warned, PSCI unusable */
	uint32_t psci_cpu_on;             /* the function id (PSCI 0.2: 0xc4000003) */

	/* An "arm,gic-v3" interrupt controller: reg is the distributor, then
	 * #redistributor-regions (default 1) redistributor ranges. */
	bool gic_v3;
	uint64_t gicd_base, gicd_bytes;
	uint32_t nr_gicr;
	uint32_t nr_dropped_gicr;         /* beyond DT_MAX_GICR */
	struct { uint64_t base, bytes; } gicr[DT_MAX_GICR];

	/* QEMU's fw_cfg device, a "qemu,fw-cfg-mmio" node: its registers
	 * (the first reg entry); fwcfg_bytes 0 when the tree names none. */
	uint64_t fwcfg_base, fwcfg_bytes;
	bool timer;                       /* arm,armv8-timer or arm,armv7-timer */
	uint32_t timer_clock_hz;          /* its clock-frequency, when firmware sets one */

	struct dt_serial serial;
	/* stdout-path names a terminal the firmware writes (OPAL's console,
	 * PAPR's vty): the architecture's own console, no UART to add. */
	bool stdout_firmware_terminal;

	bool have_bootargs;
	char bootargs[DT_BOOTARGS_BYTES];
	bool bootargs_cut;                /* longer than DT_BOOTARGS_BYTES - 1 */
	uint64_t initrd_start, initrd_end;

	/* FORM1: each domain's values at the reference points, for distances. */
	bool form1_seen[DT_MAX_DOMAINS];
	uint32_t form1_assoc[DT_MAX_DOMAINS][DT_MAX_ASSOC];

	/* POWER firmware. */
	bool rtas;
	uint32_t rtas_power_off, rtas_start_cpu, rtas_reboot, rtas_stopped_state;
	bool opal;
	uint64_t opal_base, opal_entry;

	uint32_t nr_warnings;
	bool walk_error;                  /* the walk ended early: what was read is kept */
};

/*
 * Read the machine from @dt into @out. Returns false (with a warning) only
 * when the blob has no root node; otherwise true, with everything the walk
 * reached before any error. A memory or CPU node's numa-node-id, or its
 * domain by FORM1/FORM2 associativity, or its ibm,chip-id, becomes its node;
 * distances come from /distance-map (numa-distance-map-v1) or, on POWER,
 * from FORM2's table or FORM1's reference points (Linux's rule: 10,
 * doubled at each level that differs).
 */
bool dt_machine_parse(const struct dt_blob *dt, struct dt_machine *out);
/* The distance between nodes @a and @b as the tree gives it, or 0 if not given. */
uint32_t dt_machine_distance(const struct dt_machine *m, uint32_t a, uint32_t b);

#endif
