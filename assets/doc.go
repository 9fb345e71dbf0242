// Package assets holds the embedded icons. Not built yet.
package assets
