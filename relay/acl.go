package relay

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// ACL is the workspace's membership: members and admins from the config plus
// the allow and ban decisions admins made over NIP-86, which persist in
// data_dir/acl.json. It implements policies.Membership. Every read takes the
// current state, so a change is effective for the very next event or delivery.
type ACL struct {
	open   bool
	path   string
	static map[string]bool // config members (admins included)
	admins map[string]bool

	mu       sync.RWMutex
	allowed  map[string]string // pubkey -> reason, added over NIP-86
	banned   map[string]string // pubkey -> reason
	onChange []func(pubkey string)
}

type aclFile struct {
	Allowed map[string]string `json:"allowed"`
	Banned  map[string]string `json:"banned"`
}

// NewACL loads the persisted decisions from path (absent file = none).
func NewACL(open bool, members, admins []string, path string) (*ACL, error) {
	a := &ACL{open: open, path: path, static: map[string]bool{}, admins: map[string]bool{},
		allowed: map[string]string{}, banned: map[string]string{}}
	for _, pk := range members {
		a.static[pk] = true
	}
	for _, pk := range admins {
		a.static[pk] = true
		a.admins[pk] = true
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return a, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read membership: %w", err)
	}
	var f aclFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("parse membership %s: %w", path, err)
	}
	if f.Allowed != nil {
		a.allowed = f.Allowed
	}
	if f.Banned != nil {
		a.banned = f.Banned
	}
	return a, nil
}

// Open reports whether the workspace is in open mode.
func (a *ACL) Open() bool { return a.open }

// IsAdmin reports whether pk may manage membership. Admins come only from the
// config, so a compromised admin key cannot mint more admins.
func (a *ACL) IsAdmin(pk string) bool { return a.admins[pk] && !a.IsBanned(pk) }

// IsMember reports whether pk is a member and not banned.
func (a *ACL) IsMember(pk string) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if _, banned := a.banned[pk]; banned {
		return false
	}
	_, allowed := a.allowed[pk]
	return allowed || a.static[pk]
}

// IsBanned reports whether pk is banned.
func (a *ACL) IsBanned(pk string) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	_, banned := a.banned[pk]
	return banned
}

// Allow makes pk a member (lifting a ban) and persists the decision.
func (a *ACL) Allow(pk, reason string) error {
	return a.update(pk, func() {
		delete(a.banned, pk)
		a.allowed[pk] = reason
	})
}

// Ban bans pk (which also ends its membership) and persists the decision.
func (a *ACL) Ban(pk, reason string) error {
	return a.update(pk, func() {
		delete(a.allowed, pk)
		a.banned[pk] = reason
	})
}

// Unallow removes a member added over NIP-86 (config members stay members
// until the config changes) and persists the decision.
func (a *ACL) Unallow(pk string) error {
	return a.update(pk, func() { delete(a.allowed, pk) })
}

// Unban lifts a ban and persists the decision.
func (a *ACL) Unban(pk string) error {
	return a.update(pk, func() { delete(a.banned, pk) })
}

// OnChange registers fn to run after every membership change, with the
// pubkey that changed; the relay uses it to close revoked subscriptions.
func (a *ACL) OnChange(fn func(pubkey string)) {
	a.mu.Lock()
	a.onChange = append(a.onChange, fn)
	a.mu.Unlock()
}

// update applies change and persists it; on a write failure the in-memory
// state is rolled back so memory and disk never disagree.
func (a *ACL) update(pk string, change func()) error {
	a.mu.Lock()
	prevAllowed, prevBanned := cloneMap(a.allowed), cloneMap(a.banned)
	change()
	if err := a.persist(); err != nil {
		a.allowed, a.banned = prevAllowed, prevBanned
		a.mu.Unlock()
		return err
	}
	hooks := slices.Clone(a.onChange)
	a.mu.Unlock()
	for _, fn := range hooks {
		fn(pk)
	}
	return nil
}

func (a *ACL) persist() error {
	data, err := json.MarshalIndent(aclFile{Allowed: a.allowed, Banned: a.banned}, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(a.path, data, 0o600)
}

// Allowed lists members: config members and those allowed over NIP-86,
// minus banned ones, with their reasons.
func (a *ACL) Allowed() map[string]string {
	a.mu.RLock()
	defer a.mu.RUnlock()
	out := map[string]string{}
	for pk := range a.static {
		out[pk] = "config"
	}
	for pk, r := range a.allowed {
		out[pk] = r
	}
	for pk := range a.banned {
		delete(out, pk)
	}
	return out
}

// Banned lists banned pubkeys with their reasons.
func (a *ACL) Banned() map[string]string {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return cloneMap(a.banned)
}

func cloneMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// writeFileAtomic writes data to a temp file in the same directory, syncs it
// and renames it over path, so a crash leaves either the old or the new file.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err = tmp.Chmod(mode); err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
