package tools

import (
	"bytes"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func encodeJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, testImage(w, h), &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestViewImageJPEG: a JPEG that fits is sent unchanged; a large one is
// scaled and stays a JPEG (it is a photo, PNG would be needlessly big).
func TestViewImageJPEG(t *testing.T) {
	e := newTestEnv(t, true)
	small := encodeJPEG(t, 120, 80)
	os.WriteFile(filepath.Join(e.Workdir, "small.jpg"), small, 0o644)
	os.WriteFile(filepath.Join(e.Workdir, "big.jpeg"), encodeJPEG(t, 3000, 2000), 0o644)
	cs := connect(t, e, registerViewImage)

	img, text, data := viewed(t, call(t, cs, "view_image", map[string]any{"path": "small.jpg"}), "image/jpeg")
	wantSize(t, img, 120, 80)
	if !bytes.Equal(data, small) {
		t.Errorf("a JPEG that fits should be sent unchanged (%d bytes in, %d out)", len(small), len(data))
	}
	if !strings.Contains(text, "120×80 jpeg") {
		t.Errorf("text: %q", text)
	}
	img, text, _ = viewed(t, call(t, cs, "view_image", map[string]any{"path": "big.jpeg"}), "image/jpeg")
	wantSize(t, img, 1568, 1045)
	if !strings.Contains(text, "3000×2000 jpeg") || !strings.Contains(text, "1568×1045") {
		t.Errorf("text: %q", text)
	}
	img, _, _ = viewed(t, call(t, cs, "view_image", map[string]any{"path": "big.jpeg", "max_dim": 100}), "image/jpeg")
	wantSize(t, img, 100, 66)
}

func TestViewImageFetchTimeoutIs10s(t *testing.T) {
	if imageFetchTimeout != 10*time.Second {
		t.Fatalf("imageFetchTimeout = %v, want 10s", imageFetchTimeout)
	}
}

// TestViewImageFetchTimeout: a server that stalls, before the headers or
// in the middle of the body, fails the call with a timeout error once
// imageFetchTimeout (shortened here) has passed. The handlers never
// answer on their own: only the client's timeout can end the call.
func TestViewImageFetchTimeout(t *testing.T) {
	saved := imageFetchTimeout
	imageFetchTimeout = 300 * time.Millisecond
	t.Cleanup(func() { imageFetchTimeout = saved })

	release := make(chan struct{})
	pngData := encodePNG(t, testImage(20, 10))
	mux := http.NewServeMux()
	mux.HandleFunc("/slow-headers", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	mux.HandleFunc("/slow-body", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(pngData[:20])
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs before srv.Close

	cs := connect(t, newTestEnv(t, true), registerViewImage)
	for _, p := range []string{"/slow-headers", "/slow-body"} {
		start := time.Now()
		msg := wantErr(t, call(t, cs, "view_image", map[string]any{"path": srv.URL + p}), codeInternal, srv.URL+p)
		if !strings.Contains(msg, "took over 300ms") {
			t.Errorf("%s: not a clear timeout error: %q", p, msg)
		}
		// Not a speed check: a call still running at half the production
		// timeout was not ended by the shortened one.
		if d := time.Since(start); d >= saved/2 {
			t.Errorf("%s: the call took %v; imageFetchTimeout was not applied", p, d)
		}
	}
}
