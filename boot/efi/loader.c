/*
 * loader.c: BOOTX64.EFI and BOOTAA64.EFI, memboot's direct UEFI loader
 * (gnu-efi); what differs by architecture is in loader_NAME.c (loader_arch.h).
 *
 * What it does, in order (docs/boot-paths.md has the why):
 *  1. prints its version and the firmware's vendor and revisions on ConOut
 *     (OVMF mirrors ConOut to COM1, so it shows up in `-serial stdio`);
 *  2. reads \EFI\memboot\memboot.elf from the volume it was itself loaded
 *     from, and \EFI\memboot\cmdline.txt if there is one; the network
 *     loader (memboot-net.efi: the same code linked with the kernel inside,
 *     boot/efi/embed.S) instead checks the kernel it carries and takes its
 *     words from its load options (GRUB's chainloader puts its arguments
 *     there), as it has no volume to read;
 *  3. checks the ELF (kelf_check) and loads each PT_LOAD segment at its
 *     physical address with AllocatePages(AllocateAddress); a segment that
 *     collides with memory the firmware already uses is refused with the
 *     segment, its range and the firmware ranges in the way;
 *  4. copies the RSDP from the configuration table (ACPI 2.0 GUID first,
 *     ACPI 1.0 as a fallback);
 *  5. allocates the hand-off block (boot/handoff.h) below 4 GiB, takes the
 *     memory map straight into it, and calls ExitBootServices, taking a
 *     fresh map and retrying while the firmware answers EFI_INVALID_PARAMETER
 *     (stale map key), as UEFI 2.10 section 7.4 requires;
 *  6. with interrupts off, jumps to the kernel's entry (its ELF note) with
 *     the entry magic and the block in the registers boot/handoff.h names
 *     (x86_64: RDI and RSI to _start64; arm64: x0 and x1 to _start, MMU and
 *     caches off). Nothing is printed after ExitBootServices: from there on
 *     only the kernel's console is used.
 *
 * Words of the command line that start with "efiloader." are the loader's
 * own and are not passed on; `efiloader.stale_map` changes the memory map
 * between GetMemoryMap and the first ExitBootServices on purpose, so that the
 * retry is exercised (tests/guest/test_bootpaths.py).
 */
#include <efi.h>
#include <efilib.h>

#include "boot/efi/embed.h"
#include "boot/efi/kelf.h"
#include "boot/efi/loader_arch.h"
#include "boot/handoff.h"
#include "kernel/services/limits.h"
#include "kernel/services/exit.h"   /* the statuses, shared with the kernel */

#ifndef MEMBOOT_VERSION
#define MEMBOOT_VERSION "unknown"
#endif

#define KERNEL_PATH L"\\EFI\\memboot\\memboot.elf"
#define KERNEL_NAME L"EFI/memboot/memboot.elf"   /* for messages: no backslashes */
#define CMDLINE_PATH L"\\EFI\\memboot\\cmdline.txt"
#define LOADER_NAME "memboot-efi " MEMBOOT_VERSION
#define LOADER_WORD_PREFIX "efiloader."
#define CMDLINE_MAX 2047
#define MAX_EXIT_TRIES 8
#define PAGE PAGE_SIZE_BYTES

/* gnu-efi's library has memset and memcpy for the compiler but no memcmp,
 * which kelf.c uses. */
int memcmp(const void *a, const void *b, __SIZE_TYPE__ n);
int memcmp(const void *a, const void *b, __SIZE_TYPE__ n)
{
	const unsigned char *x = a, *y = b;

	for (__SIZE_TYPE__ i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

static EFI_GUID acpi20_guid = ACPI_20_TABLE_GUID;
static EFI_GUID acpi10_guid = ACPI_TABLE_GUID;

static const char *const efi_type_names[] = {
	"Reserved", "LoaderCode", "LoaderData", "BootServicesCode",
	"BootServicesData", "RuntimeServicesCode", "RuntimeServicesData",
	"Conventional", "Unusable", "ACPIReclaim", "ACPINVS", "MMIO",
	"MMIOPortSpace", "PalCode", "Persistent",
};

static const char *efi_type_name(UINT32 type)
{
	return type < sizeof(efi_type_names) / sizeof(efi_type_names[0]) ?
		efi_type_names[type] : "(other)";
}

/*
 * A fatal problem before ExitBootServices: say what it is, for people and as
 * the `done` record the kernel would have printed for status 3 (bad boot
 * information), so that every boot still ends with `done` (docs/records.md).
 * Then give control back. Under an emulator whose exit the architecture can
 * find (x86_64: QEMU's isa-debug-exit under a hypervisor), end the run the
 * way the kernel would, so that a test fails at once instead of waiting in
 * the firmware's boot menu.
 */
static EFI_STATUS fail(EFI_STATUS st, const CHAR16 *fmt, ...)
{
	CHAR16 msg[256];
	va_list ap;

	va_start(ap, fmt);
	UnicodeVSPrint(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	Print(L"memboot-efi: %s (%r)\n", msg, st);
	for (UINTN i = 0; msg[i]; i++)   /* keep the record valid JSON */
		if (msg[i] == L'"' || msg[i] == L'\\' || msg[i] < 0x20 || msg[i] > 0x7e)
			msg[i] = L'/';
	Print(L"MEMBOOT {\"event\":\"done\",\"ok\":false,\"status\":%d,"
	      L"\"reason\":\"loader: %s\",\"warnings\":0,\"errors\":1,\"total_ns\":0}\n",
	      EXIT_BOOTINFO, msg);
	loader_arch_stop(EXIT_BOOTINFO);
	uefi_call_wrapper(BS->Stall, 1, 10 * 1000 * 1000);
	return st;
}

/* Read a whole file of the boot volume into pool memory. */
static EFI_STATUS read_file(EFI_FILE_HANDLE root, CHAR16 *path, void **data, UINTN *len)
{
	EFI_FILE_HANDLE fh;
	EFI_FILE_INFO *info;
	EFI_STATUS st;
	UINTN size;
	void *buf;

	st = uefi_call_wrapper(root->Open, 5, root, &fh, path, EFI_FILE_MODE_READ, 0ULL);
	if (EFI_ERROR(st))
		return st;
	info = LibFileInfo(fh);
	if (!info) {
		uefi_call_wrapper(fh->Close, 1, fh);
		return EFI_DEVICE_ERROR;
	}
	size = info->FileSize;
	FreePool(info);
	buf = AllocatePool(size ? size : 1);
	if (!buf) {
		uefi_call_wrapper(fh->Close, 1, fh);
		return EFI_OUT_OF_RESOURCES;
	}
	st = uefi_call_wrapper(fh->Read, 3, fh, &size, buf);
	uefi_call_wrapper(fh->Close, 1, fh);
	if (EFI_ERROR(st)) {
		FreePool(buf);
		return st;
	}
	*data = buf;
	*len = size;
	return EFI_SUCCESS;
}

/* List the firmware ranges that overlap [start, end). */
static void show_collisions(UINT64 start, UINT64 end)
{
	UINTN count, key, dsize;
	UINT32 dver;
	EFI_MEMORY_DESCRIPTOR *map = LibMemoryMap(&count, &key, &dsize, &dver);
	EFI_MEMORY_DESCRIPTOR *d = map;

	if (!map)
		return;
	for (UINTN i = 0; i < count; i++, d = NextMemoryDescriptor(d, dsize)) {
		UINT64 s = d->PhysicalStart, e = s + d->NumberOfPages * PAGE;
		if (s < end && start < e && d->Type != EfiConventionalMemory)
			Print(L"memboot-efi:   in the way: [0x%lx-0x%lx) %a (type %d)\n",
			      s, e, efi_type_name(d->Type), d->Type);
	}
	FreePool(map);
}

/* Allocate the exact pages of every PT_LOAD and copy it there. */
static EFI_STATUS load_segments(const struct kelf_image *img, const UINT8 *file)
{
	UINT64 prev_end = 0;

	for (UINT32 i = 0; i < img->nr_seg; i++) {
		const struct kelf_segment *s = &img->seg[i];
		UINT64 start = s->paddr & ~(PAGE - 1);
		UINT64 end = (s->paddr + s->memsz + PAGE - 1) & ~(PAGE - 1);
		EFI_STATUS st;

		if (start < prev_end)
			start = prev_end;   /* shares a page with the previous segment */
		if (start < end) {
			EFI_PHYSICAL_ADDRESS addr = start;
			st = uefi_call_wrapper(BS->AllocatePages, 4, AllocateAddress,
					       (s->flags & KELF_PF_X) ? EfiLoaderCode : EfiLoaderData,
					       (end - start) / PAGE, &addr);
			if (EFI_ERROR(st)) {
				show_collisions(start, end);
				return fail(st, L"kernel segment %d (program header %d) at [0x%lx-0x%lx) "
					    L"collides with memory the firmware uses",
					    i, s->phdr, s->paddr, s->paddr + s->memsz);
			}
			prev_end = end;
		}
		CopyMem((void *)(UINTN)s->paddr, (void *)(file + s->offset), s->filesz);
		if (s->memsz > s->filesz)
			SetMem((void *)(UINTN)(s->paddr + s->filesz), s->memsz - s->filesz, 0);
	}
	return EFI_SUCCESS;
}

/* The RSDP from the configuration table: ACPI 2.0 first, then 1.0. */
static const UINT8 *find_rsdp(UINT32 *bytes, UINT32 *flag)
{
	for (int pass = 0; pass < 2; pass++) {
		EFI_GUID *want = pass == 0 ? &acpi20_guid : &acpi10_guid;
		for (UINTN i = 0; i < ST->NumberOfTableEntries; i++) {
			EFI_CONFIGURATION_TABLE *t = &ST->ConfigurationTable[i];
			const UINT8 *p = t->VendorTable;
			if (CompareGuid(&t->VendorGuid, want) != 0 || !p ||
			    CompareMem((void *)p, "RSD PTR ", 8) != 0)
				continue;
			*bytes = p[15] >= 2 ? 36 : 20;
			*flag = pass == 0 ? HANDOFF_F_RSDP_ACPI20 : HANDOFF_F_RSDP_ACPI10;
			return p;
		}
	}
	return NULL;
}

/* The block's header: version 1's fields, then the framebuffer. */
#define HDR_BYTES (HANDOFF_FB_OFFSET + sizeof(struct handoff_fb))

/* Number of the lowest set bit and count of set bits of a GOP colour mask. */
static void mask_field(UINT32 mask, UINT8 *pos, UINT8 *bits)
{
	*pos = 0;
	*bits = 0;
	if (!mask)
		return;
	while (!(mask & 1)) {
		mask >>= 1;
		(*pos)++;
	}
	while (mask & 1) {
		mask >>= 1;
		(*bits)++;
	}
}

/*
 * The screen, from the Graphics Output Protocol (UEFI 2.10 section 12.9):
 * the current mode's linear framebuffer, 32 bits a pixel for the two
 * 8-bit-per-colour formats, PixelInformation's masks for PixelBitMask. A
 * blt-only mode has no framebuffer to draw on; the kernel then has no screen.
 */
static void find_gop(struct handoff_fb *fb)
{
	EFI_GUID guid = EFI_GRAPHICS_OUTPUT_PROTOCOL_GUID;
	EFI_GRAPHICS_OUTPUT_PROTOCOL *gop = NULL;
	EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *info;
	EFI_STATUS st;

	SetMem(fb, sizeof(*fb), 0);
	st = uefi_call_wrapper(BS->LocateProtocol, 3, &guid, NULL, (void **)&gop);
	if (EFI_ERROR(st) || !gop || !gop->Mode || !gop->Mode->Info) {
		Print(L"memboot-efi: no graphics output protocol; no screen console\n");
		return;
	}
	info = gop->Mode->Info;
	switch (info->PixelFormat) {
	case PixelRedGreenBlueReserved8BitPerColor:
		fb->bpp = 32;
		fb->red_pos = 0; fb->green_pos = 8; fb->blue_pos = 16;
		fb->red_bits = fb->green_bits = fb->blue_bits = 8;
		break;
	case PixelBlueGreenRedReserved8BitPerColor:
		fb->bpp = 32;
		fb->blue_pos = 0; fb->green_pos = 8; fb->red_pos = 16;
		fb->red_bits = fb->green_bits = fb->blue_bits = 8;
		break;
	case PixelBitMask:
		fb->bpp = 32;
		mask_field(info->PixelInformation.RedMask, &fb->red_pos, &fb->red_bits);
		mask_field(info->PixelInformation.GreenMask, &fb->green_pos, &fb->green_bits);
		mask_field(info->PixelInformation.BlueMask, &fb->blue_pos, &fb->blue_bits);
		break;
	default:
		Print(L"memboot-efi: graphics mode is blt-only; no screen console\n");
		return;
	}
	fb->phys = gop->Mode->FrameBufferBase;
	fb->width_px = info->HorizontalResolution;
	fb->height_px = info->VerticalResolution;
	fb->pitch_bytes = info->PixelsPerScanLine * 4;
	Print(L"memboot-efi: screen %dx%d at 0x%lx\n", fb->width_px, fb->height_px, fb->phys);
}

static UINTN ascii_len(const char *s)
{
	UINTN n = 0;
	while (s[n])
		n++;
	return n;
}

/*
 * Turn the command-line file into one line: control characters become
 * spaces, words starting with "efiloader." are taken out (they set
 * *stale_map) and the rest is copied to @out (at most CMDLINE_MAX bytes).
 */
static UINTN clean_cmdline(const UINT8 *in, UINTN len, char *out, BOOLEAN *stale_map)
{
	UINTN n = 0, i = 0;
	const UINTN plen = sizeof(LOADER_WORD_PREFIX) - 1;

	while (i < len) {
		UINTN w;
		while (i < len && (in[i] <= ' ' || in[i] == 0x7f))
			i++;
		for (w = i; w < len && in[w] > ' ' && in[w] != 0x7f; w++)
			;
		if (w == i)
			break;
		if (w - i >= plen && CompareMem((void *)(in + i), LOADER_WORD_PREFIX, plen) == 0) {
			if (w - i == plen + 9 && CompareMem((void *)(in + i + plen), "stale_map", 9) == 0)
				*stale_map = TRUE;
			else
				Print(L"memboot-efi: unknown loader word ignored\n");
		} else if (n + (n ? 1 : 0) + (w - i) <= CMDLINE_MAX) {
			if (n)
				out[n++] = ' ';
			CopyMem(out + n, (void *)(in + i), w - i);
			n += w - i;
		} else {
			Print(L"memboot-efi: command line longer than %d bytes; truncated\n", CMDLINE_MAX);
			break;
		}
		i = w;
	}
	out[n] = '\0';
	return n;
}

/*
 * The kernel inside this image (embed.S): EFI_SUCCESS with @elf and @len,
 * EFI_NOT_FOUND when this is the plain loader (the head says 0 bytes), or a
 * failure when the head or the tail is not what the build wrote, so a
 * damaged image is refused before a byte of it is used as a kernel.
 */
static EFI_STATUS embedded_kernel(void **elf, UINTN *len)
{
	const struct embed_head *h = &loader_embed_head;
	const char *start = (const char *)(h + 1);

	if (CompareMem((void *)h->magic, EMBED_MAGIC, EMBED_MAGIC_BYTES) != 0)
		return fail(EFI_COMPROMISED_DATA, L"the kernel inside this loader has no head "
			    L"(magic); the image is damaged");
	if (h->bytes == 0)
		return EFI_NOT_FOUND;
	if ((UINT64)(loader_embed_tail - start) != h->bytes ||
	    CompareMem((void *)loader_embed_tail, EMBED_MAGIC, EMBED_MAGIC_BYTES) != 0)
		return fail(EFI_COMPROMISED_DATA, L"the kernel inside this loader should be %ld "
			    L"bytes but %ld bytes lie before its tail; the image is damaged",
			    h->bytes, (UINT64)(loader_embed_tail - start));
	*elf = (void *)start;
	*len = h->bytes;
	return EFI_SUCCESS;
}

/*
 * The image's load options as one ASCII line in @out (@cap bytes with the
 * NUL): GRUB's chainloader passes its arguments there as UCS-2 text ending
 * in a NUL. Anything but printable ASCII and white space (a firmware boot
 * entry's binary optional data) is not a command line: it is ignored with
 * a message and the line is empty.
 */
static UINTN load_options_text(const EFI_LOADED_IMAGE *li, UINT8 *out, UINTN cap)
{
	const CHAR16 *opt = li->LoadOptions;
	UINTN chars = li->LoadOptionsSize / sizeof(CHAR16), n = 0;

	if (!opt)
		return 0;
	for (UINTN i = 0; i < chars && opt[i]; i++) {
		CHAR16 c = opt[i];
		if ((c < 0x20 && c != L'\t' && c != L'\n' && c != L'\r') || c > 0x7e) {
			Print(L"memboot-efi: the load options are not a text command line "
			      L"(character 0x%x at %d); ignored\n", c, i);
			return 0;
		}
		if (n + 1 >= cap) {
			Print(L"memboot-efi: load options longer than %d characters; truncated\n",
			      cap - 1);
			break;
		}
		out[n++] = (UINT8)c;
	}
	out[n] = 0;
	return n;
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	EFI_LOADED_IMAGE *li = NULL;
	EFI_FILE_HANDLE root;
	EFI_STATUS st;
	void *elf = NULL, *cmdfile = NULL;
	UINTN elf_len = 0, cmd_len = 0;
	struct kelf_image img;
	enum kelf_status kst;
	char cmdline[CMDLINE_MAX + 1];
	UINTN cmdline_len = 0;
	BOOLEAN stale_map = FALSE;
	const UINT8 *rsdp;
	UINT32 rsdp_bytes = 0, rsdp_flag = 0, flags = 0;
	UINTN map_size = 0, map_key, desc_size = 0, total, map_cap, map_off, pages;
	UINT32 desc_version = 0, tries;
	EFI_PHYSICAL_ADDRESS block = 0xffffffffULL;
	struct handoff_header *h;
	const CHAR16 *refused;

	InitializeLib(image, systab);
	Print(L"memboot-efi %a: UEFI %d.%02d, firmware '%s' revision 0x%x\n",
	      MEMBOOT_VERSION, ST->Hdr.Revision >> 16, ST->Hdr.Revision & 0xffff,
	      ST->FirmwareVendor ? ST->FirmwareVendor : L"?", ST->FirmwareRevision);

	if ((refused = loader_arch_refuse()))
		return fail(EFI_UNSUPPORTED, L"%s", refused);

	st = uefi_call_wrapper(BS->HandleProtocol, 3, image, &LoadedImageProtocol, (void **)&li);
	if (EFI_ERROR(st) || !li)
		return fail(st, L"no loaded-image protocol for this image");
	st = embedded_kernel(&elf, &elf_len);
	if (st == EFI_SUCCESS) {
		/* The network loader: no volume, the words from the load options. */
		UINT8 options[CMDLINE_MAX + 1];
		UINTN n = load_options_text(li, options, sizeof(options));

		Print(L"memboot-efi: kernel inside this loader (%d bytes)\n", elf_len);
		flags |= HANDOFF_F_KERNEL_INSIDE;
		cmdline_len = clean_cmdline(options, n, cmdline, &stale_map);
		if (n)
			flags |= HANDOFF_F_CMDLINE_OPTIONS;
	} else if (st != EFI_NOT_FOUND) {
		return st;
	} else {
		root = LibOpenRoot(li->DeviceHandle);
		if (!root)
			return fail(EFI_NOT_FOUND, L"cannot open the volume this loader came from "
				    L"(booted over a network? use memboot-net.efi, the loader with "
				    L"the kernel inside)");
		st = read_file(root, KERNEL_PATH, &elf, &elf_len);
		if (EFI_ERROR(st))
			return fail(st, L"cannot read the kernel %s from the boot volume", KERNEL_NAME);
		if (!EFI_ERROR(read_file(root, CMDLINE_PATH, &cmdfile, &cmd_len))) {
			cmdline_len = clean_cmdline(cmdfile, cmd_len, cmdline, &stale_map);
			flags |= HANDOFF_F_CMDLINE_FILE;
			FreePool(cmdfile);
		} else {
			cmdline[0] = '\0';
		}
		uefi_call_wrapper(root->Close, 1, root);
	}

	kst = kelf_check(elf, elf_len, &img);
	if (kst != KELF_OK) {
		if (kst >= KELF_ERR_SEGMENT && kst <= KELF_ERR_TOO_MANY)
			return fail(EFI_LOAD_ERROR, L"kernel %s refused: %a (program header %d, "
				    L"[0x%lx-0x%lx))", KERNEL_NAME, kelf_status_name(kst),
				    img.bad_phdr, img.bad_start, img.bad_end);
		return fail(EFI_LOAD_ERROR, L"kernel %s refused: %a", KERNEL_NAME,
			    kelf_status_name(kst));
	}
	if (img.machine != loader_elf_machine)
		return fail(EFI_LOAD_ERROR, L"kernel %s is for ELF machine %d; this loader loads %d",
			    KERNEL_NAME, img.machine, loader_elf_machine);
	if (img.handoff_version < HANDOFF_VERSION) {
		return fail(EFI_INCOMPATIBLE_VERSION, L"the kernel reads hand-off version %d; "
			    L"this loader writes %d", img.handoff_version, HANDOFF_VERSION);
	}
	st = load_segments(&img, elf);
	if (EFI_ERROR(st))
		return st;

	rsdp = find_rsdp(&rsdp_bytes, &rsdp_flag);
	flags |= rsdp_flag;
	if (!rsdp)
		Print(L"memboot-efi: no ACPI RSDP in the configuration table\n");

	/* The block: header, RSDP, command line, loader name, then the map with
	 * room for the descriptors that allocating the block itself adds. */
	st = uefi_call_wrapper(BS->GetMemoryMap, 5, &map_size, NULL, &map_key, &desc_size,
			       &desc_version);
	if (st != EFI_BUFFER_TOO_SMALL || desc_size < sizeof(EFI_MEMORY_DESCRIPTOR))
		return fail(EFI_ERROR(st) ? st : EFI_DEVICE_ERROR,
			    L"GetMemoryMap(size 0) gave %r and descriptor size %d", st, desc_size);
	map_off = (HDR_BYTES + 36 + (CMDLINE_MAX + 1) + sizeof(LOADER_NAME) + 7) & ~7ULL;
	map_cap = map_size + 32 * desc_size;
	total = map_off + map_cap;
	pages = (total + PAGE - 1) / PAGE;
	st = uefi_call_wrapper(BS->AllocatePages, 4, AllocateMaxAddress, EfiLoaderData,
			       pages, &block);
	if (EFI_ERROR(st))
		return fail(st, L"no %d pages below 4 GiB for the hand-off block", pages);
	h = (struct handoff_header *)(UINTN)block;
	SetMem(h, pages * PAGE, 0);
	h->magic = HANDOFF_MAGIC;
	h->version = HANDOFF_VERSION;
	h->header_bytes = HDR_BYTES;
	find_gop((struct handoff_fb *)((UINT8 *)h + HANDOFF_FB_OFFSET));
	h->flags = flags;
	h->system_table = (UINT64)(UINTN)ST;
	if (rsdp) {
		h->rsdp_offset = HDR_BYTES;
		h->rsdp_bytes = rsdp_bytes;
		CopyMem((UINT8 *)h + h->rsdp_offset, (void *)rsdp, rsdp_bytes);
	}
	h->cmdline_offset = HDR_BYTES + 36;
	h->cmdline_bytes = cmdline_len + 1;
	CopyMem((UINT8 *)h + h->cmdline_offset, cmdline, cmdline_len + 1);
	h->loader_offset = h->cmdline_offset + CMDLINE_MAX + 1;
	h->loader_bytes = ascii_len(LOADER_NAME) + 1;
	CopyMem((UINT8 *)h + h->loader_offset, LOADER_NAME, h->loader_bytes);
	h->map_offset = map_off;

	Print(L"memboot-efi: kernel %d segments at 0x%lx, entry 0x%lx; hand-off at 0x%lx; "
	      L"RSDP %a; exiting boot services\n", img.nr_seg, img.seg[0].paddr, img.entry64,
	      block, !rsdp ? "none" : (flags & HANDOFF_F_RSDP_ACPI20) ? "ACPI 2.0" : "ACPI 1.0");

	/* No Print from here on: it could allocate and make the map stale. */
	for (tries = 1; ; tries++) {
		map_size = map_cap;
		st = uefi_call_wrapper(BS->GetMemoryMap, 5, &map_size,
				       (EFI_MEMORY_DESCRIPTOR *)((UINT8 *)h + map_off),
				       &map_key, &desc_size, &desc_version);
		if (EFI_ERROR(st))
			break;
		if (stale_map && tries == 1) {
			EFI_PHYSICAL_ADDRESS junk;
			uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages,
					  EfiLoaderData, 1, &junk);
		}
		st = uefi_call_wrapper(BS->ExitBootServices, 2, image, map_key);
		if (st != EFI_INVALID_PARAMETER || tries == MAX_EXIT_TRIES)
			break;
	}
	if (EFI_ERROR(st)) {
		/* Boot services may be half gone; ConOut is the best left. */
		return fail(st, L"ExitBootServices failed after %d tries", tries);
	}

	h->map_bytes = map_size;
	h->desc_size = desc_size;
	h->desc_version = desc_version;
	h->exit_tries = tries;
	h->total_bytes = map_off + map_size;
	loader_arch_enter(&img, img.entry64, block, h->total_bytes);
}
