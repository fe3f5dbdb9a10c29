/*
 * gzip.h - a gzip member in two parts: a body compressed once (and cached),
 * then a tail compressed for each variant, which closes the member
 * (docs/architecture.md, "daemon/, by folder").
 */
#ifndef PMU_GZIP_H
#define PMU_GZIP_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/expo/expo_buf.h"

/*
 * The start of a gzip member: the header, then plain (len bytes)
 * deflated up to a sync flush, with no final block.  Replaces *out with a
 * malloc'ed buffer and sets *crc to plain's CRC-32; 0 or -ENOMEM.
 */
int gzip_body(const char *plain, size_t len, struct expo_buf *out,
    uint32_t *crc);

/*
 * Compress tail (len bytes) to follow a gzip body (its CRC-32 and plain
 * length) and close the member: the deflate stream's final block, then
 * CRC-32 and length of body and tail together.  Appends to *out
 * (malloc'ed); 0 or -ENOMEM.
 */
int gzip_tail(uint32_t body_crc, uint64_t body_len, const char *tail,
    size_t len, struct expo_buf *out);

#endif
