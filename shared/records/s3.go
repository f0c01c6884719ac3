package records

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/evs-kyb/evs/shared/domain"
)

// S3 keeps records in a bucket with Object Lock (see the package comment).
// The bucket's own configuration decides encryption; PutUntil and Renew
// name each version's lock (Put leaves it to the bucket's default).
type S3 struct {
	Client *s3.Client
	Bucket string

	// pageSize bounds the entries of one list request (0: S3's 1,000), so
	// that tests go through several pages.
	pageSize int32
}

// Put is PutUntil with the bucket's default lock.
func (r S3) Put(ctx context.Context, key string, body []byte) (existed bool, err error) {
	return r.PutUntil(ctx, key, body, Retention{})
}

// PutUntil writes body under key, locked as ret says, unless the key already
// holds something: the same bytes are existed=true (a retry: its lock is
// left as it is), other bytes ErrDiffers, and neither writes. It compares with the key's current version, by the SHA-256 S3 keeps
// (read back from HeadObject; the bytes when S3 kept none). The write is one
// PutObject with the body's SHA-256, which S3 checks before it stores
// anything, and If-None-Match, so that of two Puts racing past the HeadObject
// only one writes. A key whose current version is a delete marker reads as
// absent (HeadObject says so): the Put adds a version on top, which Get then
// names in Rewritten if its bytes differ from the first's.
func (r S3) PutUntil(ctx context.Context, key string, body []byte, ret Retention) (existed bool, err error) {
	if err := checkPut(key, body); err != nil {
		return false, err
	}
	sum := sha256.Sum256(body)
	want := hex.EncodeToString(sum[:])
	found, err := r.compare(ctx, key, want)
	if err != nil || found {
		return found, err
	}
	in := r.putInput(key, body, sum, ret)
	in.IfNoneMatch = aws.String("*")
	_, err = r.Client.PutObject(ctx, in)
	if isCode(err, "PreconditionFailed", "ConditionalRequestConflict") {
		// Another Put wrote the key since the HeadObject: this one is a
		// retry of it or it differs.
		if found, cerr := r.compare(ctx, key, want); cerr != nil || found {
			return found, cerr
		}
	}
	if err != nil {
		return false, fmt.Errorf("records: put %s: %w", r.url(key), err)
	}
	return false, nil
}

// compare tells whether key's current version holds the bytes hashing to
// want: found, ErrDiffers, or not found (false, nil).
func (r S3) compare(ctx context.Context, key, want string) (bool, error) {
	head, err := r.head(ctx, key, "")
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	got, err := r.sha256Of(ctx, key, "", head)
	if err != nil {
		return false, err
	}
	if got != want {
		return false, fmt.Errorf("records: put %s: %w", r.url(key), ErrDiffers)
	}
	return true, nil
}

// Get reads the first version of key (at most MaxGet bytes) with its lock,
// and lists every version after it; a key with no version (delete markers
// only, or nothing) is ErrNotFound. GetObject asks for the stored checksum,
// so that the SDK checks the bytes against it as they arrive.
func (r S3) Get(ctx context.Context, key string) (Object, error) {
	if err := checkKey(key); err != nil {
		return Object{}, err
	}
	versions, err := r.versions(ctx, key)
	if err != nil {
		return Object{}, err
	}
	first := versions[0]
	id := aws.ToString(first.VersionId)
	body, err := r.readVersion(ctx, key, id)
	if err != nil {
		return Object{}, err
	}
	// The lock is read from HeadObject: GetObjectRetention would need a
	// permission more, and moto answers it with a 500.
	head, err := r.head(ctx, key, id)
	if err != nil {
		return Object{}, err
	}
	obj := Object{
		Key:         key,
		Body:        body,
		SHA256:      hexSHA256(body),
		VersionID:   id,
		Mode:        string(head.ObjectLockMode),
		RetainUntil: aws.ToTime(head.ObjectLockRetainUntilDate),
		LegalHold:   head.ObjectLockLegalHoldStatus == types.ObjectLockLegalHoldStatusOn,
	}
	obj.Versions = append(obj.Versions, Version{ID: id, SHA256: obj.SHA256, LastModified: aws.ToTime(first.LastModified), RetainUntil: obj.RetainUntil})
	for _, v := range versions[1:] {
		vid := aws.ToString(v.VersionId)
		head, err := r.head(ctx, key, vid)
		if err != nil {
			return Object{}, err
		}
		sum, err := r.sha256Of(ctx, key, vid, head)
		if err != nil {
			return Object{}, err
		}
		later := Version{ID: vid, SHA256: sum, LastModified: aws.ToTime(v.LastModified), RetainUntil: aws.ToTime(head.ObjectLockRetainUntilDate)}
		obj.Versions = append(obj.Versions, later)
		if sum != obj.SHA256 {
			obj.Rewritten = append(obj.Rewritten, later)
		}
	}
	return obj, nil
}

// List returns the keys under prefix whose current version is an object,
// sorted: a key hidden by a delete marker is not listed, though Get still
// reads it.
func (r S3) List(ctx context.Context, prefix string) ([]string, error) {
	if err := checkPrefix(prefix); err != nil {
		return nil, err
	}
	p := s3.NewListObjectsV2Paginator(r.Client, &s3.ListObjectsV2Input{
		Bucket:  aws.String(r.Bucket),
		Prefix:  aws.String(prefix),
		MaxKeys: r.maxKeys(),
	})
	var keys []string
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("records: list %s: %w", r.url(prefix), err)
		}
		for _, o := range page.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	sort.Strings(keys)
	return keys, nil
}

// ListLocked is every key under prefix with a version, a key a delete
// marker hides included, dated by the newest version holding its first
// version's bytes: so a rewrite on top (other bytes, written to keep the
// record's renewal from falling due) neither dates it nor goes unseen. One
// listing of the versions; for a key with several, the SHA-256 of the
// first and of the newest ones, back to one with the record's bytes.
func (r S3) ListLocked(ctx context.Context, prefix string) ([]Locked, error) {
	if err := checkPrefix(prefix); err != nil {
		return nil, err
	}
	p := s3.NewListObjectVersionsPaginator(r.Client, &s3.ListObjectVersionsInput{
		Bucket:  aws.String(r.Bucket),
		Prefix:  aws.String(prefix),
		MaxKeys: r.maxKeys(),
	})
	byKey := map[string][]types.ObjectVersion{}
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("records: versions under %s: %w", r.url(prefix), err)
		}
		for _, v := range page.Versions {
			byKey[aws.ToString(v.Key)] = append(byKey[aws.ToString(v.Key)], v)
		}
	}
	out := make([]Locked, 0, len(byKey))
	for key, vs := range byKey {
		sort.SliceStable(vs, func(i, j int) bool { return aws.ToTime(vs[i].LastModified).Before(aws.ToTime(vs[j].LastModified)) })
		l, err := r.locked(ctx, key, vs)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b Locked) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// locked dates a key by its versions, oldest first.
func (r S3) locked(ctx context.Context, key string, vs []types.ObjectVersion) (Locked, error) {
	l := Locked{Key: key, Written: aws.ToTime(vs[len(vs)-1].LastModified)}
	if len(vs) == 1 {
		return l, nil
	}
	sum := func(v types.ObjectVersion) (string, error) {
		head, err := r.head(ctx, key, aws.ToString(v.VersionId))
		if err != nil {
			return "", err
		}
		return r.sha256Of(ctx, key, aws.ToString(v.VersionId), head)
	}
	record, err := sum(vs[0])
	if err != nil {
		return l, err
	}
	for i := len(vs) - 1; i > 0; i-- {
		s, err := sum(vs[i])
		if err != nil {
			return l, err
		}
		if s == record {
			l.Written = aws.ToTime(vs[i].LastModified)
			return l, nil
		}
		l.Foreign++
	}
	l.Written = aws.ToTime(vs[0].LastModified)
	return l, nil
}

// Renew writes the record's first version again as the key's newest
// version, locked as ret says: its bytes read back (GetObject of that
// version id) and put with their SHA-256, which S3 checks, and metadata
// naming the version renewed. Every older version keeps its own lock. (A
// CopyObject would spare the transfer; moto refuses one on a locked
// bucket.) A key with no version is ErrNotFound. It returns the bytes'
// SHA-256.
func (r S3) Renew(ctx context.Context, key string, ret Retention) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	versions, err := r.versions(ctx, key)
	if err != nil {
		return "", err
	}
	id := aws.ToString(versions[0].VersionId)
	body, err := r.readVersion(ctx, key, id)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(body)
	in := r.putInput(key, body, sum, ret)
	in.Metadata = map[string]string{"renewal-of": id}
	_, err = r.Client.PutObject(ctx, in)
	if err != nil {
		return "", fmt.Errorf("records: renew %s from version %s: %w", r.url(key), id, err)
	}
	return hex.EncodeToString(sum[:]), nil
}

// SetLegalHold puts the legal hold of every version of key (the record and
// its renewals) on or off; a key with no version is ErrNotFound.
func (r S3) SetLegalHold(ctx context.Context, key string, on bool) error {
	if err := checkKey(key); err != nil {
		return err
	}
	versions, err := r.versions(ctx, key)
	if err != nil {
		return err
	}
	status := types.ObjectLockLegalHoldStatusOff
	if on {
		status = types.ObjectLockLegalHoldStatusOn
	}
	for _, v := range versions {
		id := aws.ToString(v.VersionId)
		_, err = r.Client.PutObjectLegalHold(ctx, &s3.PutObjectLegalHoldInput{
			Bucket:    aws.String(r.Bucket),
			Key:       aws.String(key),
			VersionId: aws.String(id),
			LegalHold: &types.ObjectLockLegalHold{Status: status},
			// S3 wants the request's checksum; naming the algorithm also
			// sends the header moto looks for on a locked bucket.
			ChecksumAlgorithm: types.ChecksumAlgorithmSha256,
		})
		if err != nil {
			return fmt.Errorf("records: legal hold %s version %s: %w", r.url(key), id, err)
		}
	}
	return nil
}

// putInput is the PutObject of body under key, with its SHA-256, which S3
// checks before it stores anything (and moto wants on a locked bucket), and
// the lock ret names: compliance mode to its date, and the tag the
// lifecycle expires the version by (none for the zero Retention: the
// bucket's default lock).
func (r S3) putInput(key string, body []byte, sum [sha256.Size]byte, ret Retention) *s3.PutObjectInput {
	in := &s3.PutObjectInput{
		Bucket:            aws.String(r.Bucket),
		Key:               aws.String(key),
		Body:              bytes.NewReader(body),
		ContentLength:     aws.Int64(int64(len(body))),
		ContentType:       aws.String(contentType(key)),
		ChecksumAlgorithm: types.ChecksumAlgorithmSha256,
		ChecksumSHA256:    aws.String(base64.StdEncoding.EncodeToString(sum[:])),
	}
	if !ret.Until.IsZero() {
		in.ObjectLockMode = types.ObjectLockModeCompliance
		in.ObjectLockRetainUntilDate = aws.Time(ret.Until.UTC())
		in.Tagging = aws.String(url.Values{domain.RecordsKeepTag: {strconv.Itoa(ret.KeepYears)}}.Encode())
	}
	return in
}

// readVersion reads one version's bytes (at most MaxGet), asking for the
// stored checksum so that the SDK checks them as they arrive.
func (r S3) readVersion(ctx context.Context, key, id string) ([]byte, error) {
	out, err := r.Client.GetObject(ctx, &s3.GetObjectInput{
		Bucket:       aws.String(r.Bucket),
		Key:          aws.String(key),
		VersionId:    aws.String(id),
		ChecksumMode: types.ChecksumModeEnabled,
	})
	if err != nil {
		return nil, fmt.Errorf("records: get %s version %s: %w", r.url(key), id, err)
	}
	defer out.Body.Close()
	return readCapped(out.Body, r.url(key))
}

// versions lists key's versions, oldest first, leaving out delete markers
// and the other keys the prefix matches; none is ErrNotFound.
func (r S3) versions(ctx context.Context, key string) ([]types.ObjectVersion, error) {
	p := s3.NewListObjectVersionsPaginator(r.Client, &s3.ListObjectVersionsInput{
		Bucket:  aws.String(r.Bucket),
		Prefix:  aws.String(key),
		MaxKeys: r.maxKeys(),
	})
	var found []types.ObjectVersion
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("records: versions of %s: %w", r.url(key), err)
		}
		past := false
		for _, v := range page.Versions {
			if aws.ToString(v.Key) == key {
				found = append(found, v)
			} else {
				past = true
			}
		}
		for _, m := range page.DeleteMarkers {
			past = past || aws.ToString(m.Key) != key
		}
		// Keys come in order and every other key under the prefix sorts
		// after key itself: once one shows, key's versions are all read.
		if past {
			break
		}
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("records: %s: %w", r.url(key), ErrNotFound)
	}
	// S3 lists a key's versions newest first; the stable sort keeps that
	// order, reversed, for versions written within the same instant.
	slices.Reverse(found)
	sort.SliceStable(found, func(i, j int) bool {
		return aws.ToTime(found[i].LastModified).Before(aws.ToTime(found[j].LastModified))
	})
	return found, nil
}

// head is HeadObject with the stored checksum asked for; versionID "" is the
// current version. A key or version that is not there is ErrNotFound.
func (r S3) head(ctx context.Context, key, versionID string) (*s3.HeadObjectOutput, error) {
	in := &s3.HeadObjectInput{Bucket: aws.String(r.Bucket), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled}
	if versionID != "" {
		in.VersionId = aws.String(versionID)
	}
	out, err := r.Client.HeadObject(ctx, in)
	if isCode(err, "NotFound", "NoSuchKey", "NoSuchVersion") {
		return nil, fmt.Errorf("records: head %s: %w", r.url(key), ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("records: head %s version %q: %w", r.url(key), versionID, err)
	}
	return out, nil
}

// sha256Of is the hex SHA-256 of a version's bytes: the one S3 kept with it
// when it kept one for the whole object, else hashed from the bytes (a
// version written without one, or in parts).
func (r S3) sha256Of(ctx context.Context, key, versionID string, head *s3.HeadObjectOutput) (string, error) {
	if head.ChecksumType != types.ChecksumTypeComposite {
		sum, err := base64.StdEncoding.DecodeString(aws.ToString(head.ChecksumSHA256))
		if err == nil && len(sum) == sha256.Size {
			return hex.EncodeToString(sum), nil
		}
	}
	in := &s3.GetObjectInput{Bucket: aws.String(r.Bucket), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled}
	if versionID != "" {
		in.VersionId = aws.String(versionID)
	}
	out, err := r.Client.GetObject(ctx, in)
	if err != nil {
		return "", fmt.Errorf("records: get %s version %q: %w", r.url(key), versionID, err)
	}
	defer out.Body.Close()
	// Streamed, not capped: a later version may be of any size, and its
	// hash is all that is kept of it.
	h := sha256.New()
	if _, err := io.Copy(h, out.Body); err != nil {
		return "", fmt.Errorf("records: get %s version %q: %w", r.url(key), versionID, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (r S3) maxKeys() *int32 {
	if r.pageSize <= 0 {
		return nil
	}
	return aws.Int32(r.pageSize)
}

func (r S3) url(key string) string {
	return "s3://" + r.Bucket + "/" + key
}

// contentType says what a record is to whoever opens it from the console.
func contentType(key string) string {
	switch {
	case strings.HasSuffix(key, ".txt"):
		return "text/plain; charset=utf-8"
	case strings.HasSuffix(key, ".json"):
		return "application/json"
	default:
		return "application/octet-stream"
	}
}

// isCode tells whether err is an S3 error with one of the codes.
func isCode(err error, codes ...string) bool {
	var api smithy.APIError
	return errors.As(err, &api) && slices.Contains(codes, api.ErrorCode())
}
