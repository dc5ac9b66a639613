package tools

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// testImage is a w×h gradient.
func testImage(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x + y), 255})
		}
	}
	return img
}

func encodePNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pngChunk encodes one PNG chunk with its CRC.
func pngChunk(typ string, data []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	out = append(append(out, typ...), data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(append([]byte(typ), data...)))
}

// pngHeaderOnly is a PNG signature and IHDR claiming w×h, with no pixels.
func pngHeaderOnly(w, h uint32) []byte {
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, w), h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0) // 8-bit RGBA
	return append([]byte("\x89PNG\r\n\x1a\n"), pngChunk("IHDR", ihdr)...)
}

// withChunk inserts a chunk right after a PNG's IHDR.
func withChunk(p []byte, typ string, data []byte) []byte {
	const afterIHDR = 8 + 12 + 13
	out := append([]byte(nil), p[:afterIHDR]...)
	out = append(out, pngChunk(typ, data)...)
	return append(out, p[afterIHDR:]...)
}

// bitWriter writes the LSB-first bit stream of WebP lossless.
type bitWriter struct {
	buf []byte
	n   uint
}

func (b *bitWriter) write(v uint32, bits int) {
	for i := 0; i < bits; i++ {
		if b.n%8 == 0 {
			b.buf = append(b.buf, 0)
		}
		b.buf[len(b.buf)-1] |= byte(v>>i&1) << (b.n % 8)
		b.n++
	}
}

// solidWebP is a lossless WebP of one colour: x/image has no WebP encoder,
// so the VP8L stream is written by hand, with single-symbol prefix codes
// (which take zero bits per pixel).
func solidWebP(w, h int, c color.NRGBA) []byte {
	var bw bitWriter
	bw.write(0x2f, 8) // VP8L signature
	bw.write(uint32(w-1), 14)
	bw.write(uint32(h-1), 14)
	bw.write(0, 1+3) // alpha hint, version 0
	bw.write(0, 1)   // no transform
	bw.write(0, 1)   // no colour cache
	bw.write(0, 1)   // no meta prefix codes
	for _, sym := range []uint8{c.G, c.R, c.B, c.A, 0} {
		bw.write(1, 1) // simple code
		bw.write(0, 1) // one symbol
		bw.write(1, 1) // of 8 bits
		bw.write(uint32(sym), 8)
	}
	data := append(bw.buf, 0, 0, 0, 0)
	if len(data)%2 == 1 {
		data = append(data, 0)
	}
	return riffWebP("VP8L", data)
}

func riffWebP(fourcc string, chunks ...[]byte) []byte {
	body := []byte("WEBP" + fourcc)
	body = binary.LittleEndian.AppendUint32(body, uint32(len(chunks[0])))
	body = append(body, chunks[0]...)
	return append(binary.LittleEndian.AppendUint32([]byte("RIFF"), uint32(len(body))), body...)
}
