package bus

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"
)

// The announcer is an in-process MCP client of the worker's own server: it
// reads what to announce through the MCP protocol itself (initialize,
// tools/list, resources/list, prompts/list) and stays connected, so a
// notifications/*/list_changed from the server triggers a re-announcement.

// startAnnouncer connects the announcer and publishes the announcements.
func (s *Server) startAnnouncer(ctx context.Context) error {
	clientT, serverT := mcp.NewInMemoryTransports()
	if _, err := s.mcp.Connect(ctx, serverT, nil); err != nil {
		return fmt.Errorf("bus: announcer session: %w", err)
	}
	changed := make(chan struct{}, 1)
	poke := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "toolbus-announcer", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { poke() },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { poke() },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { poke() },
	})
	cs, err := client.Connect(ctx, clientT, nil)
	if err != nil {
		return fmt.Errorf("bus: announcer connect: %w", err)
	}
	if err := s.announce(ctx, cs); err != nil {
		return err
	}
	// A relay that restarted from a fresh data dir has lost the
	// announcements: publish them again after every reconnection.
	s.conn.OnConnect(poke)
	go s.reannounce(ctx, cs, changed)
	return nil
}

// reannounce republishes after list changes, debounced so that a burst of
// AddTool calls yields one announcement.
func (s *Server) reannounce(ctx context.Context, cs *mcp.ClientSession, changed <-chan struct{}) {
	defer cs.Close()
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
		if err := s.announce(ctx, cs); err != nil {
			s.log.Warn("re-announcement failed", "err", err)
		}
	}
}

// announce publishes 11316 (InitializeResult) and the lists the server has.
func (s *Server) announce(ctx context.Context, cs *mcp.ClientSession) error {
	init := cs.InitializeResult()
	if err := s.publishAnnouncement(ctx, KindServerAnnouncement, init, s.discoveryTags()); err != nil {
		return err
	}
	caps := init.Capabilities
	if caps.Tools != nil {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			return fmt.Errorf("bus: tools/list for announcement: %w", err)
		}
		if err := s.publishAnnouncement(ctx, KindToolsList, res, nil); err != nil {
			return err
		}
	}
	if caps.Resources != nil {
		if res, err := cs.ListResources(ctx, nil); err == nil {
			s.publishAnnouncement(ctx, KindResourcesList, res, nil)
		}
		if res, err := cs.ListResourceTemplates(ctx, nil); err == nil {
			s.publishAnnouncement(ctx, KindResourceTemplatesList, res, nil)
		}
	}
	if caps.Prompts != nil {
		if res, err := cs.ListPrompts(ctx, nil); err == nil {
			s.publishAnnouncement(ctx, KindPromptsList, res, nil)
		}
	}
	return nil
}

// publishAnnouncement signs and publishes one replaceable announcement. Its
// created_at strictly increases so a quick re-announcement still replaces.
func (s *Server) publishAnnouncement(ctx context.Context, kind int, content any, tags []nostr.Tag) error {
	body, err := json.Marshal(content)
	if err != nil {
		return err
	}
	s.announceMu.Lock()
	at := max(nostr.Now(), s.lastAnnAt[kind]+1)
	s.lastAnnAt[kind] = at
	s.announceMu.Unlock()
	ev := nostr.Event{Kind: kind, CreatedAt: at, Content: string(body), Tags: nostr.Tags(tags)}
	if ev.Tags == nil {
		ev.Tags = nostr.Tags{}
	}
	if err := s.key.SignEvent(ctx, &ev); err != nil {
		return err
	}
	if err := s.conn.Publish(ctx, &ev); err != nil {
		return fmt.Errorf("bus: publish announcement kind %d: %w", kind, err)
	}
	return nil
}
