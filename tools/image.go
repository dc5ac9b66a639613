package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // decoders register themselves with image.Decode
	_ "image/jpeg"
	_ "image/png"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/webp"
)

const (
	// maxImageSourceBytes caps a file or download before anything is decoded.
	maxImageSourceBytes = 20 << 20
	// maxImagePixels caps width×height, checked from the header alone, so
	// a small file claiming a huge image cannot make us allocate for it.
	maxImagePixels = 64_000_000
	// defaultImageDim is the longest edge sent back when max_dim is not
	// given: about what vision models resolve before scaling themselves.
	defaultImageDim = 1568
	// minImageDim and maxImageDim bound max_dim.
	minImageDim, maxImageDim = 64, 2048
	// maxImageOutBytes caps the encoded image in the reply.
	maxImageOutBytes = 3 << 20
)

// viewImageIn is view_image's arguments.
type viewImageIn struct {
	Path   string `json:"path" jsonschema:"a PNG, JPEG, GIF, WebP or BMP file (relative paths are relative to the working directory), or an http:// or https:// URL"`
	MaxDim int    `json:"max_dim,omitempty" jsonschema:"longest edge of the image sent back, in pixels (default 1568; clamped to 64..2048)"`
}

// imageInfo is what an image's header says.
type imageInfo struct {
	format string // as registered: png, jpeg, gif, webp, bmp
	w, h   int
}

// registerViewImage adds view_image to s.
func registerViewImage(s *mcp.Server, e *Env) {
	desc := "Look at an image: a PNG, JPEG, GIF, WebP or BMP file or an http(s):// URL (fetched " +
		"within 10 s), at most 20 MiB and 64 megapixels, not animated. It comes back as PNG or " +
		"JPEG (at most 3 MiB), scaled so its longest edge is at most max_dim pixels."
	if e.Confine {
		desc += " File paths are confined to the working directory."
	}
	mcp.AddTool(s, &mcp.Tool{Name: "view_image", Description: desc},
		func(ctx context.Context, _ *mcp.CallToolRequest, in viewImageIn) (*mcp.CallToolResult, any, error) {
			return viewImage(ctx, e, in), nil, nil
		})
}

// viewImage is view_image's handler.
func viewImage(ctx context.Context, e *Env, in viewImageIn) *mcp.CallToolResult {
	data, res := loadImage(ctx, e, in.Path)
	if res != nil {
		return res
	}
	info, res := inspectImage(in.Path, data)
	if res != nil {
		return res
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return invalidf("%s: cannot decode the %s image: %v", in.Path, info.format, err)
	}
	out, err := renderImage(img, info.format, data, clampDim(in.MaxDim))
	if err != nil {
		return toolError(codeInternal, fmt.Sprintf("%s: cannot encode the image: %v", in.Path, err))
	}
	text := fmt.Sprintf("%s: %d×%d %s, shown at %d×%d as %s (%s)",
		in.Path, info.w, info.h, info.format, out.w, out.h, out.mime, sizeText(int64(len(out.data))))
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: text},
		&mcp.ImageContent{Data: out.data, MIMEType: out.mime},
	}}
}

// loadImage reads the source: a URL (http and https only) or a file.
func loadImage(ctx context.Context, e *Env, p string) ([]byte, *mcp.CallToolResult) {
	if scheme, ok := urlScheme(p); ok {
		if scheme != "http" && scheme != "https" {
			return nil, invalidf("view_image fetches only http:// and https:// URLs, not %s://; give a file as a path", scheme)
		}
		return fetchImage(ctx, p)
	}
	ref, res := resolveFile(e, p)
	if res != nil {
		return nil, res
	}
	f, res := openRegular(ref, maxImageSourceBytes)
	if res != nil {
		return nil, res
	}
	defer f.Close()
	return readCapped(f, p)
}

// readCapped reads at most maxImageSourceBytes; one byte more means the
// source is too big (a file that grew, or a body without a length).
func readCapped(r io.Reader, shown string) ([]byte, *mcp.CallToolResult) {
	data, err := io.ReadAll(io.LimitReader(r, maxImageSourceBytes+1))
	if err != nil {
		return nil, toolError(codeInternal, fmt.Sprintf("reading %s: %v", shown, err))
	}
	if len(data) > maxImageSourceBytes {
		return nil, invalidf("%s is over the %s limit for images (stopped reading at %d bytes)",
			shown, sizeText(maxImageSourceBytes), maxImageSourceBytes)
	}
	return data, nil
}

// inspectImage reads the header only: format, size against the pixel
// budget, and animation, all before any pixel is decoded.
func inspectImage(shown string, data []byte) (imageInfo, *mcp.CallToolResult) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if errors.Is(err, image.ErrFormat) {
		return imageInfo{}, invalidf("%s is not a PNG, JPEG, GIF, WebP or BMP image", shown)
	}
	if err != nil {
		return imageInfo{}, invalidf("%s: cannot read the image header: %v", shown, err)
	}
	info := imageInfo{format: format, w: cfg.Width, h: cfg.Height}
	if info.w <= 0 || info.h <= 0 {
		return info, invalidf("%s claims %d×%d pixels", shown, info.w, info.h)
	}
	if px := int64(info.w) * int64(info.h); px > maxImagePixels {
		return info, invalidf("%s is %d×%d pixels (%.1f megapixels); the limit is %d megapixels, so it was not decoded",
			shown, info.w, info.h, float64(px)/1e6, maxImagePixels/1_000_000)
	}
	if frames := animationFrames(format, data); frames > 1 {
		return info, invalidf("%s is an animated %s (%s); only still images can be viewed", shown, format, frameText(frames))
	}
	return info, nil
}

// frameText describes a frame count; frameUnknown stands for "several".
func frameText(n int) string {
	if n == frameUnknown {
		return "several frames"
	}
	return fmt.Sprintf("%d frames", n)
}
