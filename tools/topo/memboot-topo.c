/*
 * memboot-topo: the NUMA topology memboot would build from a machine's ACPI
 * tables, printed with the kernel's own lines and records, from the kernel's
 * own parsers (kernel/firmware/acpi/, mm/numa*.c) built for the host.
 *
 *   memboot-topo [--json] FILE   acpidump text (Linux `acpidump`, or a memboot
 *                                console log of a memboot.dump_acpi boot)
 *   memboot-topo [--json] DTB    a flattened device tree (arm64 boards, POWER:
 *                                Linux's /sys/firmware/fdt, a -dtb file, QEMU's
 *                                `-machine dumpdtb=`): the kernel's DT parser and
 *                                mm/numa_dt.c, its memory map from the /memory
 *                                nodes and the reservations
 *   memboot-topo [--json] DIR    binary tables: Linux's /sys/firmware/acpi/tables
 *                                (files named by signature: APIC, SRAT, SSDT1)
 *                                or `acpixtract -a` output (apic.dat, ...); or a
 *                                copy of /sys/firmware: its acpi/tables, and
 *                                its dmi/tables (smbios_entry_point, DMI) when
 *                                there; a copy without acpi/tables but with
 *                                its fdt is read as the device tree
 *
 * With an HMAT it prints each node's best initiator's figures and memory tier
 * (mm/tiers.c); with SMBIOS tables the machine and its memory devices, each
 * on its node (mm/machine.c): the kernel's records and lines.
 *
 * It names the format it recognised on stderr ("format: ..."), or says that it
 * recognised none, so a user who points it at the wrong thing learns why.
 * Without a memory map, the usable memory is taken to be the enabled SRAT
 * memory ranges, and the CPUs that exist are the enabled ones of the MADT; the
 * boot CPU is the first of them.
 *
 * A table is used or skipped by the kernel's own rules (kernel/firmware/acpi/tables.c,
 * load_sdt()): its header length must be at least 36 bytes and within the
 * bytes given, and its bytes must sum to 0; a table that breaks one is
 * skipped with the kernel's warning, never parsed anyway. A table file that
 * cannot be read (a symbolic link loop, a dangling link, no permission) is
 * named and ends the run: a topology from some of the tables would be wrong.
 * Exit status: 0 ok, 1 unreadable input or no MADT, 64 bad usage.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "x86/apic_mode.h"
#include "boot/bootinfo.h"
#include "boot/dtimage/dtimage.h"
#include "kernel/firmware/dt.h"
#include "kernel/firmware/acpi/acpi.h"
#include "kernel/services/log.h"
#include "kernel/services/panic.h"
#include "kernel/services/report/record.h"
#include "mm/machine.h"
#include "mm/numa.h"
#include "mm/tiers.h"
#include "tests/host/host_support.h"
#include "tools/topo/acpidump_text.h"

static bool json_only;

/* The tables we need, copied out of the input. */
struct table {
	uint8_t *bytes;
	size_t len;
};
static struct table madt, srat, slit, hmat;
static unsigned nr_tables;

/* A table's header length: bytes 4..7, little endian. */
static uint32_t header_length(const uint8_t *bytes)
{
	return (uint32_t)bytes[4] | (uint32_t)bytes[5] << 8 | (uint32_t)bytes[6] << 16 |
	       (uint32_t)bytes[7] << 24;
}

/*
 * Whether the kernel's walk would use this table (kernel/firmware/acpi/tables.c,
 * load_sdt(), without ACPI_WALK_IGNORE_CHECKSUMS): a header length of at
 * least 36 bytes, all of them present, summing to 0. A table that fails is
 * skipped with the kernel's own warning; @phys is where it was (0 when the
 * input does not say) and @via where it came from, as the kernel names the
 * pointer it followed. On success *len is cut to the header's length.
 */
static bool table_usable(const char *sig, const uint8_t *bytes, size_t *len, uint64_t phys,
			 const char *via)
{
	char name[5];
	uint32_t length;
	uint8_t sum;

	/* The signature as the kernel prints it (acpi_copy_name()). */
	int i;

	for (i = 0; i < 4 && sig[i]; i++)
		name[i] = sig[i] >= 0x20 && sig[i] < 0x7f ? sig[i] : '?';
	name[i] = '\0';
	if (*len < ACPI_SDT_HEADER_BYTES) {
		pr_warn("ACPI: %s 0x%016llX (%s): header length %zu is below 36; skipped", name,
			(unsigned long long)phys, via, *len);
		return false;
	}
	length = header_length(bytes);
	if (length < ACPI_SDT_HEADER_BYTES) {
		pr_warn("ACPI: %s 0x%016llX (%s): header length %u is below 36; skipped", name,
			(unsigned long long)phys, via, length);
		return false;
	}
	if (length > *len) {
		pr_warn("ACPI: %s 0x%016llX (%s): length 0x%X runs past mapped memory; skipped",
			name, (unsigned long long)phys, via, length);
		return false;
	}
	sum = acpi_checksum(bytes, length);
	if (sum) {
		pr_warn("ACPI: %s 0x%016llX (%s): bad checksum (sum 0x%02X over 0x%X bytes); skipped",
			name, (unsigned long long)phys, via, sum, length);
		return false;
	}
	*len = length;
	return true;
}

static void keep(const char *sig, const uint8_t *bytes, size_t len, uint64_t phys,
		 const char *via)
{
	struct table *t = strncmp(sig, "APIC", 4) == 0 ? &madt :
			  strncmp(sig, "SRAT", 4) == 0 ? &srat :
			  strncmp(sig, "SLIT", 4) == 0 ? &slit :
			  strncmp(sig, "HMAT", 4) == 0 ? &hmat : NULL;

	nr_tables++;
	if (!t)
		return;
	/* As in the kernel's walk: a table is checked before it can count as
	 * the first of its signature. */
	if (!table_usable(sig, bytes, &len, phys, via))
		return;
	if (t->bytes) {
		fprintf(stderr, "memboot-topo: a second %.4s table is ignored (the first wins)\n", sig);
		return;
	}
	t->bytes = malloc(len ? len : 1);
	if (!t->bytes) {
		perror("memboot-topo");
		exit(1);
	}
	memcpy(t->bytes, bytes, len);
	t->len = len;
}

static void on_text_table(void *ctx, const char *sig, uint64_t phys, const uint8_t *bytes,
			  size_t len)
{
	keep(sig, bytes, len, phys, "acpidump");
}

/*
 * The largest input file read: acpidump text of a big server is a few MiB;
 * anything past this is not ACPI tables (e.g. /dev/zero would grow without
 * end).
 */
#define TOPO_MAX_FILE_BYTES (64u << 20)

/*
 * Read a whole regular file. Anything else is refused before a byte is read:
 * a FIFO would block (open itself blocks without O_NONBLOCK until a writer
 * comes), a device may never end. Returns NULL with errno set, or with *why
 * set to a message of our own.
 */
static char *read_all(const char *path, size_t *len, const char **why)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE *f;
	char *buf = NULL;
	size_t cap = 0, n = 0;

	*why = NULL;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		*why = "not a regular file";
		return NULL;
	}
	if ((unsigned long long)st.st_size > TOPO_MAX_FILE_BYTES) {
		close(fd);
		*why = "larger than 64 MiB, too large for ACPI tables";
		return NULL;
	}
	f = fdopen(fd, "rb");
	if (!f) {
		close(fd);
		return NULL;
	}
	for (;;) {
		if (n > TOPO_MAX_FILE_BYTES) {
			/* It grew while being read. */
			free(buf);
			fclose(f);
			*why = "larger than 64 MiB, too large for ACPI tables";
			return NULL;
		}
		if (n + 65536 + 1 > cap) {
			cap = (n + 65536 + 1) * 2;
			char *grown = realloc(buf, cap);
			if (!grown) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = grown;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The format line leads the human output; with --json it goes to stderr so
 * stdout stays records only. */
static void note_format(const char *fmt, ...)
{
	FILE *out = json_only ? stderr : stdout;
	va_list ap;

	fputs("memboot-topo: format: ", out);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fflush(out);
}

/* A memboot console log has its records; plain acpidump text has none. */
static const char *text_format(const char *text)
{
	return strstr(text, "MEMBOOT {") ? "memboot console log (memboot.dump_acpi)" :
					   "acpidump text";
}

static int read_text(const char *path)
{
	static uint8_t table_buf[1 << 20];
	size_t len;
	const char *why;
	char *text = read_all(path, &len, &why);
	unsigned before = nr_tables;

	if (!text) {
		fprintf(stderr, "memboot-topo: cannot read %s: %s\n", path,
			why ? why : strerror(errno));
		return -1;
	}
	long n = acpi_parse_acpidump_text(text, len, table_buf, sizeof(table_buf),
					  on_text_table, NULL);
	const char *format = text_format(text);
	free(text);
	if (n < 0) {
		fprintf(stderr, "memboot-topo: %s is not valid acpidump text (see the warning above)\n",
			path);
		return -1;
	}
	if (nr_tables == before)
		note_format("none recognised in %s (expected acpidump "
				"text, a memboot.dump_acpi console log, or a directory of tables)\n",
			path);
	else
		note_format("%s, %u tables\n", format,
			nr_tables - before);
	return 0;
}

/*
 * Linux's /sys/firmware/acpi/tables names each table file by its signature,
 * with a number from the second table of a signature on (SSDT, SSDT1, SSDT2);
 * acpixtract -a writes lower-case names with a .dat extension. Returns the
 * kind of name, or NULL for anything else (the data/ and dynamic/ folders,
 * stray files).
 */
static const char *table_file_kind(const char *name)
{
	size_t n = strlen(name), i;

	if (n >= 5 && strcmp(name + n - 4, ".dat") == 0)
		return "acpixtract";
	if (n < 4)
		return NULL;
	for (i = 0; i < 4; i++)
		if (!((name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= '0' && name[i] <= '9') ||
		      name[i] == '_'))
			return NULL;
	for (; i < n; i++)
		if (name[i] < '0' || name[i] > '9')
			return NULL;
	return "sysfs";
}

static int read_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	unsigned nr_sysfs = 0, nr_dat = 0, nr_unreadable = 0;

	if (!d) {
		fprintf(stderr, "memboot-topo: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		size_t len;
		char file[4096];
		const char *kind = table_file_kind(e->d_name);
		const char *why;
		char *bytes;
		struct stat fst;

		if (!kind)
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
		if (stat(file, &fst) != 0) {
			/* A symbolic link loop or a dangling link: a table the user
			 * meant to give, which is not there to read. */
			fprintf(stderr, "memboot-topo: cannot read %s: %s\n", file, strerror(errno));
			nr_unreadable++;
			continue;
		}
		if (S_ISDIR(fst.st_mode))
			continue;
		bytes = read_all(file, &len, &why);
		if (!bytes && why) {
			/* A FIFO, a device: not a table file. */
			fprintf(stderr, "memboot-topo: cannot read %s: %s; skipped\n", file, why);
			continue;
		}
		if (!bytes) {
			/* sysfs tables are readable by root only. */
			fprintf(stderr, "memboot-topo: cannot read %s: %s%s\n", file, strerror(errno),
				errno == EACCES ? " (the tables in /sys are root's: run as root, or "
						  "copy them with sudo cp -r)" : "");
			nr_unreadable++;
			continue;
		}
		if (len >= 8 && memcmp(bytes, "RSD PTR ", 8) == 0) {
			nr_tables++;   /* the RSDP: nothing in it we need */
		} else if (len < ACPI_SDT_HEADER_BYTES) {
			fprintf(stderr, "memboot-topo: %s: %zu bytes, too short for an ACPI table; skipped\n",
				file, len);
		} else if (kind[0] == 's' && memcmp(bytes, e->d_name, 4) != 0) {
			/* A sysfs name is the table's own signature; anything else is not
			 * a table we should trust. */
			fprintf(stderr, "memboot-topo: %s: signature '%.4s' does not match its name; skipped\n",
				file, isprint((unsigned char)bytes[0]) ? bytes : "????");
		} else {
			keep(bytes, (const uint8_t *)bytes, len, 0, e->d_name);
			if (kind[0] == 's')
				nr_sysfs++;
			else
				nr_dat++;
		}
		free(bytes);
	}
	closedir(d);
	if (nr_unreadable) {
		fprintf(stderr, "memboot-topo: %u table file%s of %s could not be read (see above); "
				"a topology from the others could be wrong\n",
			nr_unreadable, nr_unreadable == 1 ? "" : "s", path);
		return -1;
	}
	if (nr_sysfs + nr_dat == 0)
		note_format("none recognised in %s (expected files named by "
				"signature as in /sys/firmware/acpi/tables, or acpixtract *.dat files)\n",
			path);
	else
		note_format("%s, %u tables\n",
			nr_sysfs >= nr_dat ? "ACPI tables by signature (/sys/firmware/acpi/tables)"
					   : "acpixtract -a files (*.dat)",
			nr_sysfs + nr_dat);
	return 0;
}

/*
 * Linux's /sys/firmware/dmi/tables: smbios_entry_point (the entry point's
 * bytes) and DMI (the structure table). Returns 0 with @m filled (or
 * untouched when @dir has neither), -1 when they are there but unreadable.
 */
static int read_dmi(const char *dir, struct machine_info *m)
{
	char ep_path[4224], table_path[4224];   /* @dir: at most 4095 bytes */
	const char *why = NULL;
	struct smbios_entry ep;
	char *ep_bytes, *table;
	size_t ep_len, table_len;

	snprintf(ep_path, sizeof(ep_path), "%s/smbios_entry_point", dir);
	snprintf(table_path, sizeof(table_path), "%s/DMI", dir);
	if (access(ep_path, F_OK) != 0 && access(table_path, F_OK) != 0)
		return 0;
	if (!(ep_bytes = read_all(ep_path, &ep_len, &why))) {
		fprintf(stderr, "memboot-topo: cannot read %s: %s%s\n", ep_path,
			why ? why : strerror(errno),
			errno == EACCES ? " (root's: run as root, or copy it with sudo cp -r)" : "");
		return -1;
	}
	if (!(table = read_all(table_path, &table_len, &why))) {
		fprintf(stderr, "memboot-topo: cannot read %s: %s%s\n", table_path,
			why ? why : strerror(errno),
			errno == EACCES ? " (root's: run as root, or copy it with sudo cp -r)" : "");
		free(ep_bytes);
		return -1;
	}
	if (smbios_entry_parse(ep_bytes, ep_len, &ep) &&
	    smbios_parse(table, table_len, &ep, &m->smbios)) {
		m->have_smbios = true;
		m->smbios_source = "sysfs";
		note_format("SMBIOS %u.%u tables (/sys/firmware/dmi/tables), %u structures\n",
			    ep.major, ep.minor, m->smbios.nr_structures);
	}
	free(ep_bytes);
	free(table);
	return 0;
}

/*
 * A flattened device tree: the topology as the kernel builds it on a DT boot
 * (boot/dtimage: the /memory nodes are the usable RAM, the reservations
 * reserved; mm/numa_dt.c: numa-node-id, POWER's ibm,associativity or
 * ibm,chip-id). The boot CPU is the header's boot_cpuid_phys when a CPU has
 * that reg, else the first enabled CPU, as on an ACPI machine.
 */
static int topo_from_dtb(const char *path, const uint8_t *bytes, size_t len)
{
	static struct dt_machine m;
	static struct bootinfo map;
	static struct numa_topology topo;
	struct dt_blob dt;
	int st = dt_open(&dt, bytes, len > UINT32_MAX ? UINT32_MAX : (uint32_t)len);

	if (st != DT_OK) {
		fprintf(stderr, "memboot-topo: %s: not a usable device tree (%s)\n", path,
			dt_status_name(st));
		return 1;
	}
	note_format("flattened device tree (version %u, %u bytes)\n", dt.version,
		    dt.total_bytes);
	bootinfo_init(&map, BOOT_PATH_DT);
	enum dtimage_status ds = dtimage_fill(&dt, DTIMAGE_NOT_IN_MEMORY, &map, &m);
	if (ds != DTIMAGE_OK) {
		fprintf(stderr, "memboot-topo: %s: %s\n", path, dtimage_status_name(ds));
		return 1;
	}
	if (m.nr_cpus == 0) {
		fprintf(stderr, "memboot-topo: %s: the device tree lists no CPUs\n", path);
		return 1;
	}
	uint64_t boot_reg = m.cpus[0].hwid;
	bool boot_found = false;
	for (uint32_t i = 0; i < m.nr_cpus && !boot_found; i++)
		if (m.cpus[i].hwid == m.boot_cpuid) {
			boot_reg = m.cpus[i].hwid;
			boot_found = true;
		}
	for (uint32_t i = 0; i < m.nr_cpus && !boot_found; i++)
		if (m.cpus[i].enabled) {
			boot_reg = m.cpus[i].hwid;
			boot_found = true;
		}
	struct numa_input in = {
		.map = map.ranges,
		.nr_map = map.nr_ranges,
		.boot_hwid = numa_dt_hwid(boot_reg),
		.dt = &m,
	};
	numa_build(&topo, &in);
	numa_print(&topo);
	return 0;
}

/* Whether the file at @path starts with the device tree's magic. */
static bool file_is_dtb(const char *path)
{
	uint8_t head[4];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	bool yes = false;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && read(fd, head, 4) == 4)
		yes = dtimage_is_tree(head);
	close(fd);
	return yes;
}

static int read_dtb(const char *path)
{
	size_t len;
	const char *why;
	char *bytes = read_all(path, &len, &why);

	if (!bytes) {
		fprintf(stderr, "memboot-topo: cannot read %s: %s\n", path,
			why ? why : strerror(errno));
		return 1;
	}
	int rc = topo_from_dtb(path, (const uint8_t *)bytes, len);
	free(bytes);
	return rc;
}

static int usage(void)
{
	fprintf(stderr, "usage: memboot-topo [--json] FILE|DIR\n"
			"  FILE: acpidump text (also a memboot.dump_acpi console log),\n"
			"        or a flattened device tree (/sys/firmware/fdt, a .dtb)\n"
			"  DIR:  binary tables: /sys/firmware/acpi/tables (or a copy), or\n"
			"        acpixtract -a output (*.dat), or a copy of /sys/firmware\n"
			"        (acpi/tables, and dmi/tables when there; else its fdt)\n");
	return 64;
}

int main(int argc, char **argv)
{
	static struct acpi_madt_info madt_info;
	static struct acpi_srat_info srat_info;
	static struct acpi_slit_info slit_info;
	static struct bootinfo map;
	static struct numa_topology topo;
	static struct acpi_hmat_info hmat_info;
	static struct mem_tiers tiers;
	static struct machine_info machine;
	char sub[4096];
	const char *path = NULL;
	struct stat st;
	bool have_srat = false, have_slit = false;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json_only = true;
		else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return usage() & 0;
		else if (!path && argv[i][0] != '-')
			path = argv[i];
		else
			return usage();
	}
	if (!path)
		return usage();
	/*
	 * The kernel's lines as a console shows them (warnings on stderr), its
	 * records on stdout; --json leaves only the records' JSON there. A
	 * panic in the kernel's code is this tool's internal error (status 70,
	 * EX_SOFTWARE), not an abort.
	 */
	host_shim_configure(&(struct host_shim_options){
		.echo = json_only ? HOST_ECHO_NONE : HOST_ECHO_CONSOLE,
		.keep_lines = false,
		.records = json_only ? HOST_RECORDS_JSON : HOST_RECORDS_STDOUT,
		.panic_prefix = "memboot-topo: internal error: ",
		.panic_exit = 70,
	});
	if (stat(path, &st) != 0) {
		fprintf(stderr, "memboot-topo: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (S_ISREG(st.st_mode) && file_is_dtb(path))
		return read_dtb(path);
	/* A copy of /sys/firmware: its acpi/tables and dmi/tables; on a
	 * machine without ACPI (arm64 boards, POWER) its fdt. */
	snprintf(sub, sizeof(sub), "%s/acpi/tables", path);
	bool is_dir = S_ISDIR(st.st_mode);
	if (is_dir && stat(sub, &st) != 0) {
		snprintf(sub, sizeof(sub), "%s/fdt", path);
		if (file_is_dtb(sub))
			return read_dtb(sub);
		snprintf(sub, sizeof(sub), "%s/acpi/tables", path);
	}
	if (is_dir && stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (read_dir(sub) != 0)
			return 1;
		snprintf(sub, sizeof(sub), "%s/dmi/tables", path);
		if (read_dmi(sub, &machine) != 0)
			return 1;
	} else if ((S_ISDIR(st.st_mode) ? read_dir(path) : read_text(path)) != 0) {
		return 1;
	}
	if (!madt.bytes || !acpi_madt_parse(madt.bytes, madt.len, &madt_info)) {
		fprintf(stderr, "memboot-topo: no usable MADT (APIC) among the %u tables of %s\n",
			nr_tables, path);
		return 1;
	}
	if (srat.bytes && (have_srat = acpi_srat_parse(srat.bytes, srat.len, &srat_info)))
		acpi_srat_resolve_uids(&srat_info, &madt_info);
	if (slit.bytes)
		have_slit = acpi_slit_parse(slit.bytes, slit.len, &slit_info);

	/* No memory map: the enabled SRAT memory ranges are the usable RAM. */
	bootinfo_init(&map, BOOT_PATH_UNKNOWN);
	for (uint32_t i = 0; have_srat && i < srat_info.nr_mems; i++)
		bootinfo_add_raw(&map, srat_info.mems[i].start,
				 srat_info.mems[i].end - srat_info.mems[i].start, MEM_USABLE);
	bootinfo_normalize(&map);

	uint32_t boot_apic = 0;
	for (uint32_t i = 0; i < madt_info.nr_cpus; i++) {
		if (madt_info.cpus[i].enabled) {
			boot_apic = madt_info.cpus[i].hwid;
			break;
		}
	}
	struct numa_input in = {
		.map = map.ranges,
		.nr_map = map.nr_ranges,
		.madt = &madt_info,
		.srat = have_srat ? &srat_info : NULL,
		.slit = have_slit ? &slit_info : NULL,
		.boot_hwid = boot_apic,
	};
	numa_build(&topo, &in);
	numa_print(&topo);

	/* HMAT: checked against the SRAT, the tiers (the kernel's phase tiers). */
	bool have_hmat = hmat.bytes && acpi_hmat_parse(hmat.bytes, hmat.len, &hmat_info);
	uint32_t hmat_warnings = have_hmat ?
		acpi_hmat_check(&hmat_info, have_srat ? &srat_info : NULL) : 0;
	tiers_build(&tiers, &topo, have_hmat ? &hmat_info : NULL);
	if (have_hmat || (have_srat && srat_info.nr_generic))
		tiers_report(&tiers, &topo, have_hmat ? &hmat_info : NULL, hmat_warnings,
			     have_srat ? &srat_info : NULL);
	if (machine.have_smbios) {
		machine_place(&machine, &topo);
		machine_report(&machine);
	}

	/* An arm64 MADT (GICC entries only) has no APIC to choose a mode for. */
	bool x86_cpus = false;
	for (uint32_t i = 0; i < madt_info.nr_cpus; i++)
		x86_cpus |= !madt_info.cpus[i].gicc;
	if (!x86_cpus && madt_info.nr_gicc)
		return 0;
	/* The APIC mode the kernel would choose, for a CPU that has x2APIC (all
	 * server CPUs since 2008; the kernel checks CPUID itself). */
	struct apic_mode_input ain = { .cpu_x2apic = true, .request = APIC_REQUEST_AUTO };
	for (uint32_t i = 0; i < madt_info.nr_cpus; i++) {
		ain.madt_x2apic |= madt_info.cpus[i].ext_id;
		if (madt_info.cpus[i].hwid > ain.max_apic_id)
			ain.max_apic_id = madt_info.cpus[i].hwid;
	}
	struct apic_mode_choice ac = apic_choose_mode(&ain);
	struct record r;
	log_printf(LOG_INFO, "apic: %s mode (%s), highest APIC ID 0x%x", apic_mode_name(ac.mode),
		   ac.reason, ain.max_apic_id);
	rec_begin(&r, "apic");
	rec_str(&r, "mode", apic_mode_name(ac.mode));
	rec_str(&r, "reason", ac.reason);
	rec_bool(&r, "madt_x2apic", ain.madt_x2apic);
	rec_u64(&r, "max_apic_id", ain.max_apic_id);
	record_emit(&r);
	return 0;
}
