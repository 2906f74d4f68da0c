/**
 * The dealer's provider URL module (domain/providers/*.ts). scripts/build-embed.ts builds one
 * bundle per provider and points this import at that provider's module, so a dealer's script
 * carries only its own provider's URL code; for type checking it is mxs's (all three share
 * provider-urls.ts's ProviderUrls shape).
 */
export * from '../domain/providers/mxs';
