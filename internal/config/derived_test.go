package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPublicURLs(t *testing.T) {
	tests := []struct {
		listen, public string
		http, ws       string
	}{
		{"127.0.0.1:7447", "", "http://127.0.0.1:7447", "ws://127.0.0.1:7447"},
		{":7447", "", "http://localhost:7447", "ws://localhost:7447"},
		{"0.0.0.0:7447", "", "http://localhost:7447", "ws://localhost:7447"},
		{"[::]:7447", "", "http://localhost:7447", "ws://localhost:7447"},
		{"[::1]:7447", "", "http://[::1]:7447", "ws://[::1]:7447"},
		{"localhost:80", "", "http://localhost:80", "ws://localhost:80"},
		{":7447", "ws://relay.lan:7447", "http://relay.lan:7447", "ws://relay.lan:7447"},
		{":7447", "wss://relay.example.com", "https://relay.example.com", "wss://relay.example.com"},
		{":7447", "wss://relay.example.com/", "https://relay.example.com", "wss://relay.example.com"},
		{":7447", "https://relay.example.com/", "https://relay.example.com", "wss://relay.example.com"},
		{":7447", "http://relay.example.com", "http://relay.example.com", "ws://relay.example.com"},
		{":7447", "https://Relay.Example.com/tb/", "https://relay.example.com/tb", "wss://relay.example.com/tb"},
		{":7447", "WSS://relay.example.com:8443", "https://relay.example.com:8443", "wss://relay.example.com:8443"},
	}
	for _, tt := range tests {
		t.Run(tt.listen+" "+tt.public, func(t *testing.T) {
			c := Default()
			c.Listen, c.PublicURL = tt.listen, tt.public
			if got := c.HTTPURL(); got != tt.http {
				t.Errorf("HTTPURL() = %q, want %q", got, tt.http)
			}
			if got := c.WSURL(); got != tt.ws {
				t.Errorf("WSURL() = %q, want %q", got, tt.ws)
			}
		})
	}
}

func TestKeyFilePath(t *testing.T) {
	c := Default()
	if got, want := c.KeyFilePath(), filepath.Join("toolbus-data", "relay.key"); got != want {
		t.Errorf("default KeyFilePath() = %q, want %q", got, want)
	}
	c.KeyFile = "/etc/toolbus/key"
	if got := c.KeyFilePath(); got != "/etc/toolbus/key" {
		t.Errorf("KeyFilePath() = %q, want key_file", got)
	}
}

func TestNpubAndHexMembersAgree(t *testing.T) {
	hexKey, npub := newKey(t)
	for _, form := range []string{npub, hexKey, strings.ToUpper(hexKey), strings.ToUpper(npub)} {
		c := Default()
		c.Workspace.Members = []string{form}
		if err := c.Validate(); err != nil {
			t.Fatalf("%s: %v", form, err)
		}
		if got := c.MemberKeys(); !slices.Equal(got, []string{hexKey}) {
			t.Errorf("MemberKeys() for %s = %v, want [%s]", form, got, hexKey)
		}
	}
}

func TestMemberAndAdminKeys(t *testing.T) {
	a, aNpub := newKey(t)
	b, _ := newKey(t)
	adm, admNpub := newKey(t)
	c := Default()
	c.Workspace.Members = []string{aNpub, b, a, "not a key"}
	c.Workspace.Admins = []string{adm, admNpub, a}
	if got, want := c.MemberKeys(), []string{a, b, adm}; !slices.Equal(got, want) {
		t.Errorf("MemberKeys() = %v, want %v", got, want)
	}
	if got, want := c.AdminKeys(), []string{adm, a}; !slices.Equal(got, want) {
		t.Errorf("AdminKeys() = %v, want %v", got, want)
	}
	if got := Default().Workspace; len(hexKeys(got.Members, got.Admins)) != 0 {
		t.Error("default has members")
	}
}
