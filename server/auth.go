package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// tokenAuth checks the bearer token of every call. Tokens are compared as
// SHA-256 digests in constant time, against every configured token, so
// neither a token's content nor its length nor which token matched shows
// in the time a check takes.
type tokenAuth struct {
	digests [][sha256.Size]byte
}

func newTokenAuth(tokens []string) *tokenAuth {
	if len(tokens) == 0 {
		return nil
	}
	a := &tokenAuth{}
	for _, t := range tokens {
		a.digests = append(a.digests, sha256.Sum256([]byte(t)))
	}
	return a
}

func (a *tokenAuth) check(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	values := md.Get("authorization")
	if len(values) == 0 {
		return status.Error(codes.Unauthenticated, "this server needs a bearer token: send the header \"authorization: Bearer <token>\"")
	}
	scheme, token, ok := strings.Cut(values[0], " ")
	if !ok || !strings.EqualFold(scheme, "bearer") || token == "" {
		return status.Error(codes.Unauthenticated, "the authorization header must be \"Bearer <token>\"")
	}
	if !a.valid(token) {
		return status.Error(codes.Unauthenticated, "invalid bearer token")
	}
	return nil
}

// valid says whether token is one of the configured tokens.
func (a *tokenAuth) valid(token string) bool {
	if token == "" {
		return false
	}
	d := sha256.Sum256([]byte(token))
	match := 0
	for i := range a.digests {
		match |= subtle.ConstantTimeCompare(d[:], a.digests[i][:])
	}
	return match == 1
}

func (a *tokenAuth) unary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := a.check(ctx); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

func (a *tokenAuth) stream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if err := a.check(ss.Context()); err != nil {
		return err
	}
	return handler(srv, ss)
}
