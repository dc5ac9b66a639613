package tools

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// imageFetchTimeout bounds a whole download, body included. It is a
// variable only so that tests can shorten it: fetchImage reads it per call
// (imageClient's own timeouts keep the value from start-up as a backstop).
var imageFetchTimeout = 10 * time.Second

// imageClient fetches images. Redirects may not change the scheme to
// anything but http(s), and link-local addresses (cloud metadata services
// live at 169.254.169.254) are never dialled: a bus worker fetches for
// callers who are not on its machine.
var imageClient = &http.Client{
	Timeout:       imageFetchTimeout,
	CheckRedirect: checkImageRedirect,
	Transport:     imageTransport(),
}

func imageTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	d := &net.Dialer{Timeout: imageFetchTimeout, Control: refuseLinkLocal}
	t.DialContext = d.DialContext
	return t
}

// refuseLinkLocal is the dialer's check on the resolved address.
func refuseLinkLocal(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return nil
	}
	if a := ap.Addr().Unmap(); a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsUnspecified() {
		return fmt.Errorf("refusing to fetch from %s (link-local or unspecified address)", a)
	}
	return nil
}

func checkImageRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("too many redirects")
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("redirect to a %s:// URL refused", req.URL.Scheme)
	}
	return nil
}

// urlScheme reports whether p looks like a URL ("scheme://...") and its
// lower-cased scheme, so that file:// and friends are refused rather than
// taken for a relative path.
func urlScheme(p string) (string, bool) {
	scheme, _, ok := strings.Cut(p, "://")
	if !ok || scheme == "" {
		return "", false
	}
	for i, c := range scheme {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", false
		}
	}
	return strings.ToLower(scheme), true
}

// fetchImage downloads an image, refusing bodies over the source cap
// while reading (a missing or false Content-Length cannot get past it).
func fetchImage(ctx context.Context, url string) ([]byte, *mcp.CallToolResult) {
	ctx, cancel := context.WithTimeout(ctx, imageFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, invalidf("bad URL %s: %v", url, err)
	}
	req.Header.Set("Accept", "image/png, image/jpeg, image/gif, image/webp, image/bmp")
	timedOut := func() *mcp.CallToolResult {
		return toolError(codeInternal, fmt.Sprintf("fetching %s took over %s", url, imageFetchTimeout))
	}
	resp, err := imageClient.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, timedOut()
		}
		return nil, toolError(codeInternal, fmt.Sprintf("fetching %s: %v", url, err))
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return nil, toolError(codeNotFound, fmt.Sprintf("fetching %s: %s", url, resp.Status))
	case resp.StatusCode != http.StatusOK:
		return nil, toolError(codeInternal, fmt.Sprintf("fetching %s: %s", url, resp.Status))
	case resp.ContentLength > maxImageSourceBytes:
		return nil, invalidf("%s is %d bytes (%s), over the %s limit for images",
			url, resp.ContentLength, sizeText(resp.ContentLength), sizeText(maxImageSourceBytes))
	}
	data, res := readCapped(resp.Body, url)
	if res != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, timedOut() // the body stalled
	}
	return data, res
}
