package tools

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// errNotText is wrapped by the reasons a file is refused as text.
var errNotText = errors.New("not UTF-8 text")

// utf8Stream validates UTF-8 over consecutive chunks: a rune split between
// two chunks is carried over rather than reported as invalid.
type utf8Stream struct {
	carry []byte // start of a rune the previous chunk ended in
	pos   int64  // bytes fed so far
}

// write checks the next chunk and returns the offset of the first invalid
// byte, or -1.
func (u *utf8Stream) write(p []byte) int64 {
	start := u.pos
	u.pos += int64(len(p))
	if len(u.carry) > 0 {
		k, bad := u.complete(p)
		if bad {
			return start - int64(len(u.carry))
		}
		if len(u.carry) > 0 {
			return -1 // p was too short to finish the rune
		}
		p, start = p[k:], start+int64(k)
	}
	bad, tail := scanUTF8(p)
	if bad >= 0 {
		return start + int64(bad)
	}
	u.carry = append(u.carry[:0], p[len(p)-tail:]...)
	return -1
}

// complete finishes the carried rune with the first bytes of p and
// reports how many bytes of p it used, or that the rune is invalid.
func (u *utf8Stream) complete(p []byte) (used int, bad bool) {
	head := append(append([]byte(nil), u.carry...), p[:min(len(p), utf8.UTFMax)]...)
	if !utf8.FullRune(head) {
		u.carry = head // still incomplete: p was tiny
		return len(p), false
	}
	r, size := utf8.DecodeRune(head)
	if r == utf8.RuneError && size == 1 {
		return 0, true
	}
	used = size - len(u.carry)
	u.carry = u.carry[:0]
	return used, false
}

// close reports a rune cut off by the end of the input.
func (u *utf8Stream) close() error {
	if len(u.carry) > 0 {
		return fmt.Errorf("%w: a UTF-8 sequence is cut off at byte %d", errNotText, u.pos-int64(len(u.carry)))
	}
	return nil
}

// scanUTF8 returns the index of the first invalid byte of p (or -1) and
// the length of an incomplete rune at its end. utf8.Valid is the fast path:
// almost every chunk is valid and complete.
func scanUTF8(p []byte) (bad, tail int) {
	if utf8.Valid(p) {
		return -1, 0
	}
	for i := 0; i < len(p); {
		if p[i] < utf8.RuneSelf {
			i++
			continue
		}
		if !utf8.FullRune(p[i:]) {
			return -1, len(p) - i
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size == 1 {
			return i, 0
		}
		i += size
	}
	return -1, 0
}

// textLines streams r line by line, checking that it is UTF-8 without NUL
// bytes, and calls emit for each piece of a line (a line longer than the
// read buffer comes in several pieces; cont is true for all but the
// first). Nothing but the current buffer is held, so a 10 MiB file costs
// 64 KiB plus whatever emit keeps.
func textLines(r io.Reader, emit func(piece []byte, cont bool)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var u utf8Stream
	cont := false
	for {
		piece, err := br.ReadSlice('\n')
		if len(piece) > 0 {
			if err := checkText(&u, piece); err != nil {
				return err
			}
			emit(piece, cont)
			cont = piece[len(piece)-1] != '\n'
		}
		switch {
		case err == bufio.ErrBufferFull:
		case err == io.EOF:
			return u.close()
		case err != nil:
			return err
		}
	}
}

// checkText refuses binary content (NUL bytes) and invalid UTF-8.
func checkText(u *utf8Stream, piece []byte) error {
	if i := bytes.IndexByte(piece, 0); i >= 0 {
		return fmt.Errorf("%w: NUL byte at offset %d, so it looks binary", errNotText, u.pos+int64(i))
	}
	if off := u.write(piece); off >= 0 {
		return fmt.Errorf("%w: invalid UTF-8 at byte %d", errNotText, off)
	}
	return nil
}
