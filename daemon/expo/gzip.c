/*
 * gzip.c - a gzip member in two parts (see gzip.h): zlib's raw deflate
 * behind a hand-written header, the trailer's CRC from crc32_combine.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "daemon/expo/gzip.h"

/* A gzip header: deflate, no name, no mtime, unknown OS... Unix. */
static const unsigned char gzip_header[10] = {
	0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3
};

/*
 * Raw-deflate in (len bytes) onto out, ending with flush (Z_SYNC_FLUSH
 * for a body, Z_FINISH for a tail).  Small tails use a small window: the
 * per-request compressor then costs a few kilobytes, not 256 KiB.
 */
static int
deflate_into(struct expo_buf *out, const char *in, size_t len, int flush)
{
	const size_t turn = (size_t)1 << 30;	/* zlib counts in uInt */
	size_t left = len;
	z_stream z;
	int last, wbits = len > 4096 ? 15 : 9, mem = len > 4096 ? 8 : 1;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 1, Z_DEFLATED, -wbits, mem,
	    Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)(uintptr_t)in;
	do {
		last = left <= turn;
		z.avail_in = (uInt)(last ? left : turn);
		left -= z.avail_in;
		do {
			size_t room;

			expo_reserve(out, len / 8 + 256);
			if (out->oom) {
				deflateEnd(&z);
				return -ENOMEM;
			}
			room = out->cap - out->len;
			z.next_out = (Bytef *)out->p + out->len;
			z.avail_out = (uInt)(room > turn ? turn : room);
			if (deflate(&z, last ? flush : Z_NO_FLUSH) ==
			    Z_STREAM_ERROR) {
				deflateEnd(&z);
				return -EINVAL;
			}
			out->len = (size_t)((char *)z.next_out - out->p);
		} while (z.avail_out == 0);
	} while (!last);
	deflateEnd(&z);
	return 0;
}

int
gzip_body(const char *plain, size_t len, struct expo_buf *out,
    uint32_t *crc)
{
	struct expo_buf b = { NULL, 0, 0, 0, 0 };

	expo_reserve(&b, len / 4 + 4096);
	expo_put(&b, (const char *)gzip_header, sizeof(gzip_header));
	if (b.oom || deflate_into(&b, plain, len, Z_SYNC_FLUSH) < 0) {
		free(b.p);
		return -ENOMEM;
	}
	*out = b;
	*crc = (uint32_t)crc32_z(0, (const Bytef *)plain, len);
	return 0;
}

int
gzip_tail(uint32_t body_crc, uint64_t body_len, const char *tail,
    size_t len, struct expo_buf *out)
{
	uLong crc;
	uint64_t total = body_len + len;
	unsigned char trailer[8];
	int i, r;

	if ((r = deflate_into(out, tail, len, Z_FINISH)) < 0)
		return r;
	crc = crc32_combine((uLong)body_crc,
	    crc32_z(0, (const Bytef *)tail, len), (z_off_t)len);
	for (i = 0; i < 4; i++) {
		trailer[i] = (unsigned char)(crc >> (8 * i));
		trailer[4 + i] = (unsigned char)(total >> (8 * i));
	}
	expo_put(out, (const char *)trailer, sizeof(trailer));
	return out->oom ? -ENOMEM : 0;
}
