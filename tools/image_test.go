package tools

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/image/bmp"
	"golang.org/x/image/webp"
)

// viewed checks a successful view_image result and decodes its image.
func viewed(t *testing.T, res *mcp.CallToolResult, mime string) (image.Image, string, []byte) {
	t.Helper()
	text := wantOK(t, res)
	var img *mcp.ImageContent
	for _, c := range res.Content {
		if ic, ok := c.(*mcp.ImageContent); ok {
			img = ic
		}
	}
	if img == nil || img.MIMEType != mime {
		t.Fatalf("want %s image content, got %+v (%s)", mime, res.Content, text)
	}
	if len(img.Data) > maxImageOutBytes {
		t.Fatalf("image is %d bytes, over the cap", len(img.Data))
	}
	m, _, err := image.Decode(bytes.NewReader(img.Data))
	if err != nil {
		t.Fatal(err)
	}
	return m, text, img.Data
}

func wantSize(t *testing.T, img image.Image, w, h int) {
	t.Helper()
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("image is %dx%d, want %dx%d", b.Dx(), b.Dy(), w, h)
	}
}

func TestViewImageScaling(t *testing.T) {
	e := newTestEnv(t, true)
	os.WriteFile(filepath.Join(e.Workdir, "big.png"), encodePNG(t, testImage(3000, 2000)), 0o644)
	small := encodePNG(t, testImage(100, 50))
	os.WriteFile(filepath.Join(e.Workdir, "small.png"), small, 0o644)
	cs := connect(t, e, registerViewImage)

	img, text, _ := viewed(t, call(t, cs, "view_image", map[string]any{"path": "big.png"}), "image/png")
	wantSize(t, img, 1568, 1045)
	if !strings.Contains(text, "3000×2000") || !strings.Contains(text, "1568×1045") {
		t.Errorf("text does not give both sizes: %q", text)
	}
	img, _, _ = viewed(t, call(t, cs, "view_image", map[string]any{"path": "big.png", "max_dim": 5000}), "image/png")
	wantSize(t, img, 2048, 1365)
	img, _, _ = viewed(t, call(t, cs, "view_image", map[string]any{"path": "big.png", "max_dim": 10}), "image/png")
	wantSize(t, img, 64, 42)
	img, _, _ = viewed(t, call(t, cs, "view_image", map[string]any{"path": "big.png", "max_dim": 2048}), "image/png")
	wantSize(t, img, 2048, 1365)
	img, _, _ = viewed(t, call(t, cs, "view_image", map[string]any{"path": "small.png", "max_dim": 10}), "image/png")
	wantSize(t, img, 64, 32)
	_, _, data := viewed(t, call(t, cs, "view_image", map[string]any{"path": "small.png"}), "image/png")
	if !bytes.Equal(data, small) {
		t.Errorf("a PNG that fits was re-encoded")
	}
}

func TestViewImagePixelBudget(t *testing.T) {
	e := newTestEnv(t, true)
	os.WriteFile(filepath.Join(e.Workdir, "huge.png"), pngHeaderOnly(10000, 10000), 0o644)
	os.WriteFile(filepath.Join(e.Workdir, "over.png"), pngHeaderOnly(8000, 8001), 0o644)
	os.WriteFile(filepath.Join(e.Workdir, "edge.png"), pngHeaderOnly(8000, 8000), 0o644)
	cs := connect(t, e, registerViewImage)
	wantErr(t, call(t, cs, "view_image", map[string]any{"path": "huge.png"}), codeInvalidParams, "10000×10000", "100.0 megapixels", "not decoded")
	wantErr(t, call(t, cs, "view_image", map[string]any{"path": "over.png"}), codeInvalidParams, "megapixels")
	// Exactly 64 megapixels passes the budget and fails only at decoding
	// (the file has no pixel data).
	wantErr(t, call(t, cs, "view_image", map[string]any{"path": "edge.png"}), codeInvalidParams, "cannot decode")
}

func TestViewImageRefusesAnimation(t *testing.T) {
	e := newTestEnv(t, true)
	pal := color.Palette{color.Black, color.White}
	frame := func() *image.Paletted { return image.NewPaletted(image.Rect(0, 0, 8, 8), pal) }
	var anim, still bytes.Buffer
	gif.EncodeAll(&anim, &gif.GIF{Image: []*image.Paletted{frame(), frame()}, Delay: []int{10, 10}})
	gif.EncodeAll(&still, &gif.GIF{Image: []*image.Paletted{frame()}, Delay: []int{0}})
	apng := withChunk(encodePNG(t, testImage(8, 8)), "acTL", []byte{0, 0, 0, 2, 0, 0, 0, 0})
	vp8x := make([]byte, 10)
	vp8x[0] = 1 << 1 // animation flag
	files := map[string][]byte{"anim.gif": anim.Bytes(), "still.gif": still.Bytes(), "anim.png": apng,
		"anim.webp": riffWebP("VP8X", vp8x)}
	for name, data := range files {
		os.WriteFile(filepath.Join(e.Workdir, name), data, 0o644)
	}
	cs := connect(t, e, registerViewImage)
	wantErr(t, call(t, cs, "view_image", map[string]any{"path": "anim.gif"}), codeInvalidParams, "animated gif", "2 frames")
	wantErr(t, call(t, cs, "view_image", map[string]any{"path": "anim.png"}), codeInvalidParams, "animated png", "2 frames")
	wantErr(t, call(t, cs, "view_image", map[string]any{"path": "anim.webp"}), codeInvalidParams, "animated webp")
	img, _, _ := viewed(t, call(t, cs, "view_image", map[string]any{"path": "still.gif"}), "image/png")
	wantSize(t, img, 8, 8)
}

func TestViewImageSourceCap(t *testing.T) {
	e := newTestEnv(t, true)
	base := encodePNG(t, testImage(16, 16))
	// Pad a valid PNG with a private ancillary chunk up to exactly 20 MiB.
	pad := maxImageSourceBytes - len(base) - 12
	os.WriteFile(filepath.Join(e.Workdir, "exact.png"), withChunk(base, "pdNg", make([]byte, pad)), 0o644)
	os.WriteFile(filepath.Join(e.Workdir, "over.png"), withChunk(base, "pdNg", make([]byte, pad+1)), 0o644)
	cs := connect(t, e, registerViewImage)
	img, _, _ := viewed(t, call(t, cs, "view_image", map[string]any{"path": "exact.png"}), "image/png")
	wantSize(t, img, 16, 16)
	wantErr(t, call(t, cs, "view_image", map[string]any{"path": "over.png"}), codeInvalidParams, "20971521 bytes", "20 MiB")
	wantErr(t, call(t, cs, "view_image", map[string]any{"path": "missing.png"}), codeNotFound)
	os.WriteFile(filepath.Join(e.Workdir, "text.png"), []byte("not an image"), 0o644)
	wantErr(t, call(t, cs, "view_image", map[string]any{"path": "text.png"}), codeInvalidParams, "not a PNG, JPEG, GIF, WebP or BMP")
}

func TestViewImageBMPAndWebP(t *testing.T) {
	e := newTestEnv(t, true)
	var b bytes.Buffer
	if err := bmp.Encode(&b, testImage(40, 30)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(e.Workdir, "a.bmp"), b.Bytes(), 0o644)
	blue := color.NRGBA{10, 20, 200, 255}
	os.WriteFile(filepath.Join(e.Workdir, "dot.webp"), solidWebP(1, 1, blue), 0o644)
	os.WriteFile(filepath.Join(e.Workdir, "wide.webp"), solidWebP(3000, 1000, blue), 0o644)
	if _, err := webp.Decode(bytes.NewReader(solidWebP(1, 1, blue))); err != nil {
		t.Fatalf("the hand-made WebP does not decode: %v", err)
	}
	cs := connect(t, e, registerViewImage)
	img, text, _ := viewed(t, call(t, cs, "view_image", map[string]any{"path": "a.bmp"}), "image/png")
	wantSize(t, img, 40, 30)
	if !strings.Contains(text, "bmp") {
		t.Errorf("format not named: %q", text)
	}
	img, _, _ = viewed(t, call(t, cs, "view_image", map[string]any{"path": "dot.webp"}), "image/png")
	wantSize(t, img, 1, 1)
	if r, g, bb, _ := img.At(0, 0).RGBA(); r>>8 != 10 || g>>8 != 20 || bb>>8 != 200 {
		t.Errorf("WebP pixel is %d,%d,%d", r>>8, g>>8, bb>>8)
	}
	img, _, _ = viewed(t, call(t, cs, "view_image", map[string]any{"path": "wide.webp"}), "image/png")
	wantSize(t, img, 1568, 522)
}

// TestViewImageOutputCap: noise does not compress, so the PNG is too big
// and the reply falls back to JPEG under 3 MiB.
func TestViewImageOutputCap(t *testing.T) {
	e := newTestEnv(t, true)
	img := image.NewNRGBA(image.Rect(0, 0, 2000, 2000))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = uint8(rng.UintN(256))
		if i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	os.WriteFile(filepath.Join(e.Workdir, "noise.png"), encodePNG(t, img), 0o644)
	cs := connect(t, e, registerViewImage)
	out, _, _ := viewed(t, call(t, cs, "view_image", map[string]any{"path": "noise.png", "max_dim": 2048}), "image/jpeg")
	wantSize(t, out, 2000, 2000)
}

func TestViewImageURL(t *testing.T) {
	pngData := encodePNG(t, testImage(20, 10))
	big := bytes.Repeat([]byte{0}, 25<<20)
	mux := http.NewServeMux()
	mux.HandleFunc("/img.png", func(w http.ResponseWriter, _ *http.Request) { w.Write(pngData) })
	mux.HandleFunc("/big", func(w http.ResponseWriter, _ *http.Request) { w.Write(big) })
	mux.HandleFunc("/chunked", func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i < 25; i++ { // no Content-Length: the cap must hold while reading
			w.Write(big[:1<<20])
			w.(http.Flusher).Flush()
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	cs := connect(t, newTestEnv(t, true), registerViewImage)
	img, _, _ := viewed(t, call(t, cs, "view_image", map[string]any{"path": srv.URL + "/img.png"}), "image/png")
	wantSize(t, img, 20, 10)
	wantErr(t, call(t, cs, "view_image", map[string]any{"path": srv.URL + "/big"}), codeInvalidParams, "20 MiB")
	wantErr(t, call(t, cs, "view_image", map[string]any{"path": srv.URL + "/chunked"}), codeInvalidParams, "20 MiB")
	wantErr(t, call(t, cs, "view_image", map[string]any{"path": srv.URL + "/missing"}), codeNotFound, "404")
	wantErr(t, call(t, cs, "view_image", map[string]any{"path": "file:///etc/passwd"}), codeInvalidParams, "only http:// and https://", "file://")
	wantErr(t, call(t, cs, "view_image", map[string]any{"path": "FTP://example.com/a.png"}), codeInvalidParams, "ftp://")
	wantErr(t, call(t, cs, "view_image", map[string]any{"path": "http://169.254.169.254/latest"}), codeInternal, "link-local")
}
