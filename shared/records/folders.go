package records

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Folders lists the names of the folders directly under prefix (which ends
// in "/"), sorted: audit/<account>/ under "audit/". A verifier walks the
// bucket a folder at a time, so that what it holds at once is one chain's
// listing, never the bucket's.
func (d Dir) Folders(ctx context.Context, prefix string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkPrefix(prefix); err != nil || !strings.HasSuffix(prefix, "/") {
		return nil, fmt.Errorf("records: folders under %q: a prefix ending in /", prefix)
	}
	entries, err := os.ReadDir(filepath.Join(d.Root, filepath.FromSlash(prefix)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("records: folders under %s: %w", prefix, err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && !strings.Contains(e.Name(), "~") {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// Folders is S3's common prefixes under prefix, by the delimiter "/".
func (r S3) Folders(ctx context.Context, prefix string) ([]string, error) {
	if err := checkPrefix(prefix); err != nil || !strings.HasSuffix(prefix, "/") {
		return nil, fmt.Errorf("records: folders under %q: a prefix ending in /", prefix)
	}
	p := s3.NewListObjectsV2Paginator(r.Client, &s3.ListObjectsV2Input{
		Bucket: aws.String(r.Bucket), Prefix: aws.String(prefix), Delimiter: aws.String("/"), MaxKeys: r.maxKeys(),
	})
	var out []string
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("records: folders under %s: %w", r.url(prefix), err)
		}
		for _, c := range page.CommonPrefixes {
			out = append(out, strings.TrimSuffix(strings.TrimPrefix(aws.ToString(c.Prefix), prefix), "/"))
		}
	}
	sort.Strings(out)
	return out, nil
}
