/**
 * The built-in manufacturer catalogue (spec 01 §3 seed data): Honda (15 models), Toyota (7),
 * Ford (6), Chevrolet (6), Nissan (7), Hyundai (6) with their current US line-ups, categories,
 * trims with MSRP in whole US dollars, default model mappings (normalised inventory key ->
 * canonical name), default upsell rules (Honda: the seed candidates of spec 01 §9), trim
 * patterns (each model's trim ladder, entry trim first) and brand colours (Honda #CC0000).
 */
import type { Manufacturer, VehicleModel } from '../../domain/schemas';
import { modelKey } from '../../domain/model-keys';
import { slugify } from '../../domain/slug';

export type CatalogueEntry = Omit<Manufacturer, 'createdAt' | 'updatedAt'>;

type TrimSpec = [displayName: string, msrp: number];

function model(
  name: string,
  displayName: string,
  category: VehicleModel['category'],
  trims: TrimSpec[],
  upsellTargets: string[] = [],
  priority = 0,
): VehicleModel {
  const msrps = trims.map(([, p]) => p);
  return {
    id: name,
    name,
    displayName,
    category,
    msrp: { min: Math.min(...msrps), max: Math.max(...msrps) },
    trims: trims.map(([display, msrp], i) => ({
      id: `${name}-${slugify(display)}`,
      name: slugify(display),
      displayName: display,
      msrp,
      isPopular: i === Math.min(1, trims.length - 1),
      priority: i + 1,
    })),
    isActive: true,
    priority,
    upsellTargets,
  };
}

function manufacturer(
  id: string,
  name: string,
  colors: [string, string],
  models: VehicleModel[],
  extraMappings: Record<string, string> = {},
): CatalogueEntry {
  const mappings: Record<string, string> = {};
  for (const m of models) {
    mappings[modelKey(m.name)] = m.name;
    mappings[modelKey(m.displayName)] = m.name;
  }
  return {
    id,
    name,
    logoUrl: '',
    primaryColor: colors[0],
    secondaryColor: colors[1],
    models: models.map((m, i) => ({ ...m, priority: i + 1 })),
    defaultModelMappings: { ...mappings, ...extraMappings },
    defaultUpsellRules: Object.fromEntries(models.filter((m) => m.upsellTargets[0]).map((m) => [m.name, m.upsellTargets[0]!])),
    defaultTrimPatterns: Object.fromEntries(models.map((m) => [m.name, m.trims.map((t) => t.name)])),
    providerCompatibility: ['mxs', 'dealer-inspire', 'custom'],
    assetNamingConvention: 'new_{year}_{manufacturer}_{model}_{trim}_{size}.{ext}',
  };
}

export const CATALOGUE: CatalogueEntry[] = [
  manufacturer(
    'honda',
    'Honda',
    ['#CC0000', '#1A1A1A'],
    [
      model('civic', 'Civic', 'sedan', [['LX', 24250], ['Sport', 26450]], ['accord']),
      model('civic-hybrid', 'Civic Hybrid', 'sedan', [['Sport Hybrid', 29650], ['Sport Touring Hybrid', 32850]]),
      model('civic-hatchback', 'Civic Hatchback', 'hatchback', [['LX', 25450], ['Sport', 27650], ['Sport Hybrid', 30850], ['Sport Touring Hybrid', 34050]]),
      model('civic-si', 'Civic Si', 'sedan', [['Si', 30150]]),
      model('civic-type-r', 'Civic Type R', 'hatchback', [['Type R', 45890]]),
      model('accord', 'Accord', 'sedan', [['LX', 28795], ['SE', 30795]], ['cr-v']),
      model('accord-hybrid', 'Accord Hybrid', 'sedan', [['Sport Hybrid', 33690], ['Sport-L Hybrid', 34990], ['EX-L Hybrid', 35690], ['Touring Hybrid', 39690]]),
      model('hr-v', 'HR-V', 'suv', [['LX', 25400], ['Sport', 27400], ['EX-L', 29400]], ['cr-v']),
      model('cr-v', 'CR-V', 'suv', [['LX', 30850], ['EX', 33850], ['EX-L', 37250]], ['pilot', 'passport']),
      model('cr-v-hybrid', 'CR-V Hybrid', 'suv', [['Sport Hybrid', 34050], ['Sport-L Hybrid', 39350], ['Sport Touring Hybrid', 41850]]),
      model('passport', 'Passport', 'suv', [['RTL', 44450], ['TrailSport', 47950], ['TrailSport Elite', 52650]], ['pilot']),
      model('pilot', 'Pilot', 'suv', [['Sport', 40200], ['EX-L', 44700], ['Touring', 48400], ['TrailSport', 50000], ['Elite', 54280], ['Black Edition', 55880]], ['odyssey']),
      model('odyssey', 'Odyssey', 'wagon', [['EX-L', 42920], ['Sport-L', 44410], ['Touring', 46790], ['Elite', 52230]], ['pilot']),
      model('ridgeline', 'Ridgeline', 'truck', [['Sport', 40100], ['RTL', 43030], ['TrailSport', 46130], ['Black Edition', 47630]], ['pilot']),
      model('prologue', 'Prologue', 'suv', [['EX', 47400], ['Touring', 51700], ['Elite', 57900]], ['cr-v', 'pilot']),
    ],
    { civicsedan: 'civic', accordsedan: 'accord' },
  ),
  manufacturer(
    'toyota',
    'Toyota',
    ['#EB0A1E', '#58595B'],
    [
      model('corolla', 'Corolla', 'sedan', [['LE', 22825], ['SE', 25750], ['XSE', 28860]], ['camry']),
      model('camry', 'Camry', 'sedan', [['LE', 28700], ['SE', 31000], ['XLE', 34400], ['XSE', 35000]], ['rav4']),
      model('rav4', 'RAV4', 'suv', [['LE', 29250], ['XLE', 30815], ['XLE Premium', 33920], ['Limited', 37940]], ['highlander']),
      model('highlander', 'Highlander', 'suv', [['LE', 39520], ['XLE', 43420], ['Limited', 47370], ['Platinum', 50870]], ['grand-highlander']),
      model('grand-highlander', 'Grand Highlander', 'suv', [['XLE', 43070], ['Limited', 50455], ['Platinum', 55420]]),
      model('tacoma', 'Tacoma', 'truck', [['SR', 31590], ['SR5', 36220], ['TRD Sport', 39390], ['TRD Off-Road', 41350], ['Limited', 52800]], ['tundra']),
      model('tundra', 'Tundra', 'truck', [['SR', 40965], ['SR5', 47055], ['Limited', 55580], ['Platinum', 64770]]),
    ],
  ),
  manufacturer(
    'ford',
    'Ford',
    ['#003478', '#6D6E71'],
    [
      model('maverick', 'Maverick', 'truck', [['XL', 26295], ['XLT', 28595], ['Lariat', 36195]], ['ranger']),
      model('ranger', 'Ranger', 'truck', [['XL', 33350], ['XLT', 36600], ['Lariat', 47085]], ['f-150']),
      model('f-150', 'F-150', 'truck', [['XL', 38810], ['STX', 45040], ['XLT', 48255], ['Lariat', 64310], ['Platinum', 72130]]),
      model('bronco-sport', 'Bronco Sport', 'suv', [['Big Bend', 32290], ['Outer Banks', 35995], ['Badlands', 39985]], ['explorer']),
      model('escape', 'Escape', 'suv', [['Active', 29495], ['ST-Line', 31495], ['Platinum', 37485]], ['explorer']),
      model('explorer', 'Explorer', 'suv', [['Active', 40870], ['ST-Line', 46650], ['Platinum', 53750]]),
    ],
  ),
  manufacturer(
    'chevrolet',
    'Chevrolet',
    ['#CD9834', '#1F1F1F'],
    [
      model('trax', 'Trax', 'suv', [['LS', 21895], ['1RS', 23195], ['LT', 23395], ['2RS', 24995], ['ACTIV', 24995]], ['trailblazer']),
      model('trailblazer', 'Trailblazer', 'suv', [['LS', 24395], ['LT', 26195], ['ACTIV', 28595], ['RS', 28895]], ['equinox']),
      model('equinox', 'Equinox', 'suv', [['LT', 28600], ['RS', 32595], ['ACTIV', 33195]], ['traverse']),
      model('traverse', 'Traverse', 'suv', [['LT', 40995], ['Z71', 48195], ['RS', 54195]]),
      model('colorado', 'Colorado', 'truck', [['WT', 31895], ['LT', 34995], ['Trail Boss', 39495], ['Z71', 42895], ['ZR2', 48995]], ['silverado']),
      model('silverado', 'Silverado 1500', 'truck', [['WT', 37645], ['Custom', 43195], ['LT', 49695], ['RST', 54295], ['LTZ', 59195], ['High Country', 64995]]),
    ],
  ),
  manufacturer(
    'nissan',
    'Nissan',
    ['#C3002F', '#000000'],
    [
      model('versa', 'Versa', 'sedan', [['S', 17190], ['SV', 20290], ['SR', 21590]], ['sentra']),
      model('sentra', 'Sentra', 'sedan', [['S', 21590], ['SV', 22690], ['SR', 25190]], ['altima']),
      model('altima', 'Altima', 'sedan', [['S', 27000], ['SV', 28450], ['SR', 29450], ['SL', 32950]], ['rogue']),
      model('kicks', 'Kicks', 'suv', [['S', 21830], ['SV', 23420], ['SR', 25890]], ['rogue']),
      model('rogue', 'Rogue', 'suv', [['S', 29230], ['SV', 30740], ['SL', 37250], ['Platinum', 42100]], ['pathfinder']),
      model('pathfinder', 'Pathfinder', 'suv', [['S', 37230], ['SV', 40420], ['SL', 44550], ['Platinum', 51110]]),
      model('frontier', 'Frontier', 'truck', [['S', 31790], ['SV', 35690], ['PRO-4X', 40190], ['SL', 44380]], ['pathfinder']),
    ],
  ),
  manufacturer(
    'hyundai',
    'Hyundai',
    ['#002C5F', '#A2A9AD'],
    [
      model('elantra', 'Elantra', 'sedan', [['SE', 22125], ['SEL', 23325], ['Limited', 27825], ['N Line', 29000]], ['sonata']),
      model('sonata', 'Sonata', 'sedan', [['SE', 26900], ['SEL', 28900], ['Limited', 36400]], ['tucson']),
      model('kona', 'Kona', 'suv', [['SE', 24550], ['SEL', 26550], ['N Line', 31550], ['Limited', 32250]], ['tucson']),
      model('tucson', 'Tucson', 'suv', [['SE', 29200], ['SEL', 31550], ['XRT', 34000], ['Limited', 38930]], ['santa-fe']),
      model('santa-fe', 'Santa Fe', 'suv', [['SE', 34200], ['SEL', 36450], ['XRT', 41250], ['Limited', 45250], ['Calligraphy', 48250]], ['palisade']),
      model('palisade', 'Palisade', 'suv', [['SE', 38495], ['SEL', 42055], ['XRT', 43355], ['Limited', 49755], ['Calligraphy', 53805]]),
    ],
  ),
];
