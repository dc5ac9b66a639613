package tools

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"
)

// jpegQualities are tried in turn until the encoded image fits
// maxImageOutBytes; below the last one, the image is made smaller instead.
var jpegQualities = []int{85, 70, 55, 40}

// encodedImage is what view_image sends back.
type encodedImage struct {
	data []byte
	mime string
	w, h int
}

// clampDim applies max_dim's default and bounds.
func clampDim(d int) int {
	if d == 0 {
		return defaultImageDim
	}
	return min(max(d, minImageDim), maxImageDim)
}

// fitSize scales w×h so that its longest edge is at most maxDim, keeping
// the aspect ratio; images already small enough are not enlarged.
func fitSize(w, h, maxDim int) (int, int) {
	if w <= maxDim && h <= maxDim {
		return w, h
	}
	if w >= h {
		return maxDim, max(1, int(int64(h)*int64(maxDim)/int64(w)))
	}
	return max(1, int(int64(w)*int64(maxDim)/int64(h))), maxDim
}

// renderImage scales img to fit maxDim and encodes it under
// maxImageOutBytes, shrinking further if no encoding fits. A PNG or JPEG
// that already fits is sent unchanged, losing nothing to re-encoding.
func renderImage(img image.Image, format string, src []byte, maxDim int) (encodedImage, error) {
	b := img.Bounds()
	w, h := fitSize(b.Dx(), b.Dy(), maxDim)
	if w == b.Dx() && h == b.Dy() && (format == "png" || format == "jpeg") && len(src) <= maxImageOutBytes {
		return encodedImage{data: src, mime: "image/" + format, w: w, h: h}, nil
	}
	for {
		out, err := encodeUnder(scaleImage(img, w, h), format == "jpeg")
		if err != nil || out.data != nil || (w == 1 && h == 1) {
			return out, err
		}
		w, h = max(1, w*3/4), max(1, h*3/4)
	}
}

// scaleImage resamples img to w×h with Catmull-Rom, which stays sharp on
// text and screenshots where bilinear blurs.
func scaleImage(img image.Image, w, h int) image.Image {
	if b := img.Bounds(); b.Dx() == w && b.Dy() == h {
		return img
	}
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, img.Bounds(), draw.Src, nil)
	return dst
}

// encodeUnder encodes img as PNG (lossless, best for screenshots) unless
// the source was a photo (JPEG), then as JPEG at falling qualities. It
// returns no data when nothing fits maxImageOutBytes.
func encodeUnder(img image.Image, photo bool) (encodedImage, error) {
	b := img.Bounds()
	out := encodedImage{w: b.Dx(), h: b.Dy()}
	var buf bytes.Buffer
	if !photo {
		if err := png.Encode(&buf, img); err != nil {
			return out, err
		}
		if buf.Len() <= maxImageOutBytes {
			out.data, out.mime = buf.Bytes(), "image/png"
			return out, nil
		}
	}
	flat := flatten(img)
	for _, q := range jpegQualities {
		buf.Reset()
		if err := jpeg.Encode(&buf, flat, &jpeg.Options{Quality: q}); err != nil {
			return out, err
		}
		if buf.Len() <= maxImageOutBytes {
			out.data, out.mime = buf.Bytes(), "image/jpeg"
			return out, nil
		}
	}
	return out, nil
}

// flatten puts a non-opaque image on white, since JPEG has no alpha and
// would otherwise turn transparent areas black.
func flatten(img image.Image) image.Image {
	if o, ok := img.(interface{ Opaque() bool }); ok && o.Opaque() {
		return img
	}
	b := img.Bounds()
	dst := image.NewRGBA(b)
	draw.Draw(dst, b, image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(dst, b, img, b.Min, draw.Over)
	return dst
}
