/*
 * bytes.h: fields of firmware tables read from bytes at any address.
 *
 * ACPI and SMBIOS fields are little-endian (ACPI 6.5 5.2, SMBIOS 3.7 5.1);
 * a flattened device tree's are big-endian (Devicetree Specification 0.4,
 * 5.2). Tables sit at any alignment (QEMU's RSDT is at an odd address), so
 * every field is assembled from its bytes: no cast of a table pointer, and
 * the same answer on every CPU whatever its own byte order.
 */
#ifndef MEMBOOT_KERNEL_FIRMWARE_BYTES_H
#define MEMBOOT_KERNEL_FIRMWARE_BYTES_H

#include <stdint.h>

static inline uint16_t fw_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t fw_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t fw_le64(const uint8_t *p)
{
	return (uint64_t)fw_le32(p) | (uint64_t)fw_le32(p + 4) << 32;
}

static inline uint32_t fw_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline uint64_t fw_be64(const uint8_t *p)
{
	return (uint64_t)fw_be32(p) << 32 | (uint64_t)fw_be32(p + 4);
}

#endif
