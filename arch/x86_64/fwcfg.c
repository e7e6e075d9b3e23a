/*
 * fwcfg.c: reading QEMU's fw_cfg items (arch/fwcfg.h) through x86's I/O
 * ports (QEMU's docs/specs/fw_cfg.rst): a 16-bit selector at 0x510, then
 * the selected item's bytes, sequentially from its start, at 0x511.
 *
 * The data port gives one byte per port read, and under TCG every port
 * read is an exit to the device model taken under QEMU's global lock: the
 * fw_cfg directory alone (64 bytes a file, a few dozen files) cost a
 * millisecond of boot, and up to 5 ms when the lock was busy. The DMA
 * interface (fw_cfg.rst, "FW_CFG_DMA_ADDRESS") moves a whole buffer per
 * request: the guest writes the physical address of a control structure
 * { be32 control; be32 length; be64 address } to port 0x514 (high half)
 * and 0x518 (low half; this write starts the transfer), and the device
 * clears `control` when done, or leaves its error bit set. The device
 * says it has the interface in bit 1 of item FW_CFG_ID.
 *
 * The transfer lands in a bounce buffer in the kernel image, which is
 * identity mapped (linked at 1 MiB), so its address is its physical one
 * whatever the caller's buffer is.
 */
#include "arch/fwcfg.h"

#include <string.h>

#include "arch/cpu.h"
#include "x86/io.h"

#define FW_CFG_PORT_SEL 0x510
#define FW_CFG_PORT_DATA 0x511

#define FW_CFG_ID 0x0001
#define FW_CFG_ID_DMA (1u << 1)
#define FW_CFG_PORT_DMA_HIGH 0x514
#define FW_CFG_PORT_DMA_LOW 0x518
#define FW_CFG_DMA_CTL_ERROR 0x01u
#define FW_CFG_DMA_CTL_READ 0x02u
#define BOUNCE_BYTES 4096
/* QEMU completes a transfer inside the port write; the bound only keeps a
 * device that never answers from hanging the boot. */
#define DMA_POLL_LIMIT 10000000u

struct fwcfg_dma {
	uint32_t control;   /* big-endian, as the whole structure */
	uint32_t length;
	uint64_t address;
};

static struct fwcfg_dma dma __attribute__((aligned(16)));
static uint8_t bounce[BOUNCE_BYTES] __attribute__((aligned(64)));
static enum { DMA_UNKNOWN, DMA_NO, DMA_YES } dma_state;

static void port_read(void *buf, size_t len)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = inb(FW_CFG_PORT_DATA);
}

/* The ports are fixed: always there under QEMU, nothing to locate. */
bool arch_fwcfg_default(struct arch_fwcfg_regs *out)
{
	*out = (struct arch_fwcfg_regs){ FW_CFG_PORT_SEL, 0, "I/O ports 0x510" };
	return true;
}

void arch_fwcfg_use(uint64_t base)
{
	(void)base;
}

void arch_fwcfg_select(uint16_t select)
{
	if (dma_state == DMA_UNKNOWN) {
		char sig[4];
		uint32_t id = 0;

		/* Only QEMU's device says "QEMU" here; a port with nothing
		 * behind it (another hypervisor) reads 0xff, which must not
		 * count as "has DMA" and leave us polling for an answer. */
		outw(FW_CFG_PORT_SEL, ARCH_FWCFG_SIGNATURE);
		port_read(sig, sizeof(sig));
		if (memcmp(sig, "QEMU", 4) == 0) {
			outw(FW_CFG_PORT_SEL, FW_CFG_ID);
			port_read(&id, sizeof(id));   /* little-endian, unlike the rest */
		}
		dma_state = id & FW_CFG_ID_DMA ? DMA_YES : DMA_NO;
	}
	outw(FW_CFG_PORT_SEL, select);
}

static bool dma_read(void *buf, size_t len)
{
	const uint64_t phys = (uint64_t)(uintptr_t)&dma;

	while (len) {
		uint32_t n = len < BOUNCE_BYTES ? (uint32_t)len : BOUNCE_BYTES;
		uint32_t ctl;
		unsigned polls = 0;

		dma.control = __builtin_bswap32(FW_CFG_DMA_CTL_READ);
		dma.length = __builtin_bswap32(n);
		dma.address = __builtin_bswap64((uint64_t)(uintptr_t)bounce);
		/* The structure must be in memory before the device reads it. */
		__asm__ volatile("" ::: "memory");
		outl(FW_CFG_PORT_DMA_HIGH, __builtin_bswap32((uint32_t)(phys >> 32)));
		outl(FW_CFG_PORT_DMA_LOW, __builtin_bswap32((uint32_t)phys));
		while ((ctl = __builtin_bswap32(__atomic_load_n(&dma.control, __ATOMIC_ACQUIRE))) &
		       ~FW_CFG_DMA_CTL_ERROR) {
			if (++polls == DMA_POLL_LIMIT)
				return false;
			arch_cpu_relax();
		}
		if (ctl & FW_CFG_DMA_CTL_ERROR)
			return false;
		memcpy(buf, bounce, n);
		buf = (uint8_t *)buf + n;
		len -= n;
	}
	return true;
}

bool arch_fwcfg_read(void *buf, size_t len)
{
	if (dma_state == DMA_YES)
		return dma_read(buf, len);
	port_read(buf, len);
	return true;
}
