/** Saves the dealer's script in the browser (spec 02 §2 Script, Dealer script page). */

/** File name of a dealer's script download: dc-banners-{dealerId}.js. */
export const scriptFileName = (dealerId: string) => `dc-banners-${dealerId}.js`;

/** Downloads `content` as `dc-banners-{dealerId}.js` through a Blob URL. */
export function downloadScript(dealerId: string, content: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: 'application/javascript' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = scriptFileName(dealerId);
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  // Revoke after the click has been handled, or some browsers cancel the download.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
