package tools

import (
	"bytes"
	"encoding/binary"
)

// frameUnknown is animationFrames' answer for an image known to be
// animated whose frames were not counted.
const frameUnknown = 1 << 30

// animationFrames tells from the container alone whether an image is
// animated: Go's decoders would silently show the first frame of an APNG
// or animated WebP, and gif.DecodeAll would decode every frame. It
// returns the number of frames when known, frameUnknown for "animated",
// and 1 otherwise (including when the structure is malformed: the
// decoder then reports it).
func animationFrames(format string, data []byte) int {
	switch format {
	case "gif":
		return gifFrames(data)
	case "png":
		return apngFrames(data)
	case "webp":
		if webpAnimated(data) {
			return frameUnknown
		}
	}
	return 1
}

// gifFrames counts image descriptors by walking the GIF block structure,
// without decompressing anything. It stops at the second frame.
func gifFrames(d []byte) int {
	const header = 13 // signature, version, logical screen descriptor
	if len(d) < header {
		return 1
	}
	p, frames := header+colorTableLen(d[10]), 0
	for p < len(d) && frames < 2 {
		switch d[p] {
		case 0x21: // extension: label, then sub-blocks
			p = skipSubBlocks(d, p+2)
		case 0x2C: // image descriptor (10 bytes), local colours, LZW code size, data
			frames++
			if p+10 > len(d) {
				return frames
			}
			p = skipSubBlocks(d, p+10+colorTableLen(d[p+9])+1)
		default: // 0x3B trailer, or something malformed
			return max(frames, 1)
		}
	}
	return max(frames, 1)
}

// colorTableLen is the size of the colour table a GIF packed field announces.
func colorTableLen(packed byte) int {
	if packed&0x80 == 0 {
		return 0
	}
	return 3 << ((packed & 7) + 1)
}

// skipSubBlocks returns the offset after the sub-block chain at p (or
// past the end when truncated).
func skipSubBlocks(d []byte, p int) int {
	for p < len(d) {
		n := int(d[p])
		p++
		if n == 0 {
			return p
		}
		p += n
	}
	return len(d) + 1
}

// apngFrames reads an APNG's acTL chunk (which must precede the image
// data) for its frame count.
func apngFrames(d []byte) int {
	for p := 8; p+8 <= len(d); {
		n, typ := int(binary.BigEndian.Uint32(d[p:])), string(d[p+4:p+8])
		switch {
		case typ == "IDAT":
			return 1
		case typ == "acTL" && p+12 <= len(d):
			return max(int(binary.BigEndian.Uint32(d[p+8:])), 1)
		case n < 0 || n > len(d):
			return 1
		}
		p += 12 + n // length, type, data, CRC
	}
	return 1
}

// webpAnimated reads the animation flag of an extended (VP8X) WebP.
func webpAnimated(d []byte) bool {
	const animationBit = 1 << 1
	return len(d) >= 21 && bytes.Equal(d[12:16], []byte("VP8X")) && d[20]&animationBit != 0
}
